import { randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import {
  ResultSet,
  type ClickHouseSettings,
  type DataFormat,
  type QueryParams,
  type QueryResult,
  type ResponseHeaders,
} from '@clickhouse/client'
import { ClickHouseTimedOut, ClickHouseUnavailable } from './errors'
import { FairQueue } from './fairQueue'
import type { Control, Lane, Statement, StatementAnswer } from './lanes'
import { currentTenant } from './tenant'

/** A read, as @clickhouse/client's query() takes it, with the time it may take. */
export type ReadParams<Format extends DataFormat> = Omit<QueryParams, 'format'> & {
  format?: Format
  /**
   * How long the statement may take, waiting for a connection included, before the caller is
   * answered ClickHouseTimedOut and the statement killed; the pool's default without it.
   */
  timeoutMs?: number
}

export interface CommandParams {
  query: string
  query_params?: Record<string, unknown>
  clickhouse_settings?: ClickHouseSettings
  abort_signal?: AbortSignal
  timeoutMs?: number
}

/** The reading side of the service's ClickHouse: what @clickhouse/client's query() and command() are, on a pool of connections. */
export interface ClickHouseReader {
  query<Format extends DataFormat = 'JSON'>(params: ReadParams<Format>): Promise<QueryResult<Format>>
  command(params: CommandParams): Promise<{ query_id: string; response_headers: ResponseHeaders }>
  /** Whether ClickHouse answers a statement, asked out of turn: for probes, which must not wait behind the readers' statements. */
  probe(signal?: AbortSignal): Promise<void>
}

export interface ReaderPoolOptions {
  lanes: Lane[]
  control: Control
  /** Of the lanes, how many one organization may hold at once. */
  perOrganization: number
  /** A statement's limit when its caller gives none. */
  defaultTimeoutMs: number
  /** Told of what goes wrong out of any caller's sight (a lane that could not be cleaned, a kill that failed). */
  log?: (msg: string, err?: unknown) => void
}

/** How long a server statement goes unanswered before the server's ping is asked whether it is there at all. */
const STALL_CHECK_MS = 2_000

/** A statement its caller stopped waiting for (a closed connection, a cancelled query). */
export class StatementCancelled extends Error {
  constructor(options?: { cause?: unknown }) {
    super('The statement was cancelled by its caller.', options)
    this.name = 'StatementCancelled'
  }
}

/**
 * The reader connections, shared by every project fairly and each statement's for as long as it
 * runs. A statement waits its tenant's turn (FairQueue), runs on a lane of its own, and answers
 * its caller within its limit whatever the engine does: at the limit the caller gets
 * ClickHouseTimedOut and the statement is killed; a server that stops answering its ping fails
 * the statements waiting on it with ClickHouseUnavailable. The lane itself is taken back only
 * when its statement has really ended (a killed one included), and cleaned if it failed.
 */
export class ReaderPool implements ClickHouseReader {
  private readonly idle: Lane[]
  private readonly queue: FairQueue
  private health: Promise<void> | undefined

  constructor(private readonly options: ReaderPoolOptions) {
    this.idle = [...options.lanes]
    this.queue = new FairQueue({ slots: options.lanes.length, perOrganization: options.perOrganization })
  }

  async query<Format extends DataFormat = 'JSON'>(params: ReadParams<Format>): Promise<QueryResult<Format>> {
    const format = (params.format ?? 'JSON') as Format
    const { id, answer } = await this.execute(
      { kind: 'query', sql: params.query, params: params.query_params ?? {}, settings: params.clickhouse_settings ?? {}, format },
      params,
    )
    return ResultSet.instance<Format>({
      stream: Readable.from([Buffer.from(answer.text)]),
      format,
      query_id: id,
      log_error: () => {},
      response_headers: answer.headers,
    })
  }

  async command(params: CommandParams): Promise<{ query_id: string; response_headers: ResponseHeaders }> {
    const { id, answer } = await this.execute(
      { kind: 'command', sql: params.query, params: params.query_params ?? {}, settings: params.clickhouse_settings ?? {}, format: 'JSON' },
      params,
    )
    return { query_id: id, response_headers: answer.headers }
  }

  /** Whether ClickHouse answers a statement, asked on the control connection: never queued behind the lanes' statements. */
  probe(signal?: AbortSignal): Promise<void> {
    return this.options.control.probe(signal)
  }

  async close(): Promise<void> {
    await Promise.all([...this.options.lanes.map((lane) => lane.close()), this.options.control.close()])
  }

  private async execute(
    statement: Omit<Statement, 'id' | 'signal'>,
    caller: { abort_signal?: AbortSignal | undefined; timeoutMs?: number | undefined },
  ): Promise<{ id: string; answer: StatementAnswer }> {
    caller.abort_signal?.throwIfAborted()
    const id = randomUUID()
    const limitMs = caller.timeoutMs ?? this.options.defaultTimeoutMs
    // Aborted with the reason the caller is answered: the limit, a cancellation, a server gone.
    const stop = new AbortController()
    const stopped = new Promise<never>((_, reject) => stop.signal.addEventListener('abort', () => reject(stop.signal.reason as Error)))
    stopped.catch(() => {})
    const timer = setTimeout(() => stop.abort(new ClickHouseTimedOut(limitMs)), limitMs)
    const onCancel = () => stop.abort(new StatementCancelled({ cause: caller.abort_signal?.reason }))
    caller.abort_signal?.addEventListener('abort', onCancel, { once: true })
    let unwatch = () => {}
    try {
      const release = await this.queue.acquire(currentTenant(), stop.signal)
      const lane = this.idle.pop()!
      const running = lane.run({ ...statement, id, signal: stop.signal })
      void this.takeBack(lane, running, release)
      unwatch = this.watchServer(stop)
      try {
        return { id, answer: await Promise.race([running, stopped]) }
      } catch (err) {
        if (stop.signal.aborted) this.kill(id)
        throw err
      }
    } finally {
      clearTimeout(timer)
      unwatch()
      caller.abort_signal?.removeEventListener('abort', onCancel)
    }
  }

  /** Once the lane's statement has ended, however its caller was answered: the lane cleaned if it failed, then free again. */
  private async takeBack(lane: Lane, running: Promise<StatementAnswer>, release: () => void): Promise<void> {
    try {
      await running
    } catch {
      await lane
        .reset()
        .catch((err: unknown) => this.options.log?.('clickhouse: a reader connection could not be cleaned after a failed statement', err))
    }
    this.idle.push(lane)
    release()
  }

  private kill(id: string): void {
    this.options.control
      .kill(id)
      .catch((err: unknown) => this.options.log?.('clickhouse: a statement past its limit could not be killed', err))
  }

  /**
   * On a server, a statement that goes unanswered has the server's ping asked, again and again
   * while it runs: a server that does not answer it (down, frozen, unreachable) fails the
   * statement at once with ClickHouseUnavailable instead of leaving its caller waiting until the limit.
   */
  private watchServer(stop: AbortController): () => void {
    const ping = this.options.control.ping?.bind(this.options.control)
    if (!ping) return () => {}
    let timer: NodeJS.Timeout | undefined
    let watching = true
    const check = () => {
      this.serverAnswers(ping).then(
        () => {
          if (watching) timer = setTimeout(check, STALL_CHECK_MS)
        },
        (err: unknown) => {
          if (watching)
            stop.abort(
              err instanceof ClickHouseUnavailable ? err : new ClickHouseUnavailable('ClickHouse is not answering', { cause: err }),
            )
        },
      )
    }
    timer = setTimeout(check, STALL_CHECK_MS)
    return () => {
      watching = false
      clearTimeout(timer)
    }
  }

  /** One ping at a time, whatever the number of statements waiting. */
  private serverAnswers(ping: () => Promise<void>): Promise<void> {
    this.health ??= ping().finally(() => {
      this.health = undefined
    })
    return this.health
  }
}
