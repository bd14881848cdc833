import { hostname } from 'node:os'
import pino from 'pino'
import type { Config } from '@burrow/config'

export type Logger = pino.Logger

/**
 * JSON lines on stdout. `base` replaces pino's own (pid and hostname), so they are named again:
 * a log shipper gathering several instances tells them apart by these.
 */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = { level: config.LOG_LEVEL, base: { service: 'burrow', pid: process.pid, hostname: hostname() } }
  return destination ? pino(options, destination) : pino(options)
}

/**
 * How a part of the service that knows nothing of pino reports: a warning, or a failure with
 * its error, which pino serialises in `err` (type, message, stack) rather than inside `msg`.
 */
export type LogFn = (msg: string, err?: unknown) => void

export function logFn(logger: Logger): LogFn {
  return (msg, err) => (err === undefined ? logger.warn(msg) : logger.error({ err }, msg))
}

/**
 * A log that writes a message at most once per interval, then says how many like it it left
 * out: a dependency down makes every request that needs it fail the same way, which would
 * otherwise write a line per request. Messages are alike when they match once digits are
 * ignored (thread numbers, ports, ids).
 */
export function rateLimitedLog(log: LogFn, intervalMs = 30_000, now: () => number = Date.now): LogFn {
  const recent = new Map<string, { at: number; left: number }>()
  return (msg, err) => {
    const key = msg.replace(/\d+/g, '#').slice(0, 80)
    const at = now()
    const last = recent.get(key)
    if (last && at - last.at < intervalMs) {
      last.left++
      return
    }
    // Bounded: a flood of distinct messages forgets the older ones rather than growing.
    if (recent.size >= 1_000) recent.clear()
    recent.set(key, { at, left: 0 })
    log(last?.left ? `${msg} (and ${last.left} more like it in the last ${Math.round((at - last.at) / 1000)} s)` : msg, err)
  }
}
