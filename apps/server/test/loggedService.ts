import type { Config } from '@burrow/config'
import { databaseUrlForTests, testConfig } from '@burrow/testing'
import { startApp, type RunningApp } from '../src/app'
import { createLogger } from '../src/logger'

export type LogLine = Record<string, any> & { level: number; msg: string }

/** The service's log lines, as parsed JSON, kept for a test to read. */
export class CapturedLog {
  readonly lines: LogLine[] = []

  write(chunk: string): void {
    for (const line of chunk.split('\n')) if (line) this.lines.push(JSON.parse(line) as LogLine)
  }

  /** The lines whose message matches. */
  matching(pattern: RegExp): LogLine[] {
    return this.lines.filter((line) => pattern.test(line.msg))
  }
}

export interface LoggedService {
  app: RunningApp
  config: Config
  baseUrl: string
  log: CapturedLog
}

/** The service in this process, as startTestService starts it, with its log lines captured. */
export async function startLoggedService(
  overrides: Partial<Record<keyof Config, string | number | boolean>> = {},
  log = new CapturedLog(),
): Promise<LoggedService> {
  const config = await loggedServiceConfig(overrides)
  const app = await startApp(config, createLogger(config, log))
  return { app, config, baseUrl: `http://127.0.0.1:${app.port}`, log }
}

export async function loggedServiceConfig(overrides: Partial<Record<keyof Config, string | number | boolean>> = {}): Promise<Config> {
  const databaseUrl = await databaseUrlForTests()
  return testConfig({ ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), LOG_LEVEL: 'info', ...overrides })
}

/** The same URL, with its host and port replaced by the given local port (a proxy's, a closed one). */
export function atPort(url: string, port: number): string {
  const parsed = new URL(url)
  parsed.hostname = '127.0.0.1'
  parsed.port = String(port)
  return parsed.toString()
}

/** A metric's value from Prometheus' text format, by its name and labels as written (`name{a="b"}`). */
export function metricValue(text: string, series: string): number | undefined {
  const escaped = series.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const match = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text)
  return match ? Number(match[1]) : undefined
}
