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
