import net from 'node:net'
import type postgres from 'postgres'
import { PostgresUnavailable } from './errors'

/** Whether PostgreSQL answers, as the last liveness check found. */
export interface Liveness {
  ok: boolean
  /** Why not, when not: the check's error, or that it was not answered in time. */
  error?: string
  /** The round trip of the last answered check. */
  latencyMs?: number
  /** Since when (ms since the epoch) PostgreSQL has been in this state. */
  since: number
}

/** What the driver gives a socket factory: where to connect. */
interface ConnectTarget {
  host: string[]
  port: number[]
  path?: string | false
}

type SocketFactory = (target: ConnectTarget) => net.Socket

export interface LivenessOptions {
  intervalMs: number
  timeoutMs: number
  /** A pool of one connection for the checks, opened with the given socket factory. */
  openPing: (socket: SocketFactory) => postgres.Sql
  onChange?: ((liveness: Liveness) => void) | undefined
}

/**
 * Checks on an interval that PostgreSQL answers a `select 1`, each check with a deadline, and
 * keeps the result. The pool's sockets come from `socket`, so that once a check goes unanswered
 * the connections stuck on a server that will not answer are closed (their calls fail with
 * PostgresUnavailable), and calls made while it is down fail at once instead of each waiting
 * for a connection timeout.
 */
export function watchLiveness(options: LivenessOptions) {
  const poolSockets = new Set<net.Socket>()
  const pingSockets = new Set<net.Socket>()
  let state: Liveness = { ok: true, since: Date.now() }
  let inFlight: { startedAt: number } | undefined
  let stopped = false

  let turn = 0
  const socketsInto =
    (sockets: Set<net.Socket>, failFastWhileDown: boolean): SocketFactory =>
    (target) => {
      const socket = connectTo(target, turn++)
      if (failFastWhileDown && !state.ok) {
        // Destroyed on the next turn, once the driver listens to it: its error is the call's.
        const reason = state.error ?? 'down'
        setImmediate(() => socket.destroy(new PostgresUnavailable(reason)))
        return socket
      }
      sockets.add(socket)
      return socket
    }
  const ping = options.openPing(socketsInto(pingSockets, false))

  const destroyAll = (sockets: Set<net.Socket>, reason: string) => {
    for (const socket of sockets) socket.destroy(new PostgresUnavailable(reason))
    sockets.clear()
  }
  const settle = (next: Omit<Liveness, 'since'>) => {
    const changed = next.ok !== state.ok
    state = { ...next, since: changed ? Date.now() : state.since }
    if (!next.ok) destroyAll(poolSockets, next.error ?? 'down')
    if (changed && !stopped) options.onChange?.(state)
  }

  const check = () => {
    for (const sockets of [poolSockets, pingSockets]) for (const socket of sockets) if (socket.destroyed) sockets.delete(socket)
    const current = inFlight
    if (current) {
      if (performance.now() - current.startedAt < options.timeoutMs) return
      // Judged after this turn's I/O: an answer that came while the event loop was held is read first.
      setImmediate(() => {
        if (inFlight !== current || stopped) return
        inFlight = undefined
        const reason = `no answer within ${options.timeoutMs} ms`
        destroyAll(pingSockets, reason)
        settle({ ok: false, error: reason })
      })
      return
    }
    const attempt = { startedAt: performance.now() }
    inFlight = attempt
    ping`select 1`.then(
      () => {
        if (inFlight !== attempt) return
        inFlight = undefined
        settle({ ok: true, latencyMs: Math.round((performance.now() - attempt.startedAt) * 10) / 10 })
      },
      (err: unknown) => {
        if (inFlight !== attempt) return
        inFlight = undefined
        settle({ ok: false, error: firstLine(err) })
      },
    )
  }
  const timer = setInterval(check, options.intervalMs)
  timer.unref()
  check()

  return {
    socket: socketsInto(poolSockets, true),
    state: (): Liveness => state,
    async stop() {
      stopped = true
      clearInterval(timer)
      destroyAll(pingSockets, 'closing')
      await ping.end({ timeout: 0 }).catch(() => {})
    },
  }
}

/** A socket to one of the hosts, taken in turn (the driver does the same without a factory). */
function connectTo(target: ConnectTarget, turn: number): net.Socket {
  if (target.path) return net.connect(target.path)
  const i = turn % target.host.length
  const host = target.host[i]!
  const port = target.port[i] ?? target.port[0] ?? 5432
  // The driver names host and port in its errors from these fields.
  return Object.assign(net.connect(port, host), { host, port })
}

/** An error's code and first line: what failed, without a stack or a query. */
function firstLine(err: unknown): string {
  const code = (err as { code?: unknown })?.code
  const message = String((err as Error)?.message ?? err)
    .split('\n')[0]!
    .slice(0, 200)
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message
}
