import type { Config } from '@burrow/config'
import {
  createTestAccount,
  databaseUrlForTests,
  isolatedDatabaseUrl,
  removeTestDirs,
  testConfig,
  waitFor,
  type TestAccount,
} from '@burrow/testing'
import { afterAll, beforeAll } from 'vitest'
import { startApp, type RunningApp } from '../src/app'
import { createLogger } from '../src/logger'

export interface TestService {
  app: RunningApp
  config: Config
  baseUrl: string
  account(): Promise<TestAccount>
  /** A private API call with the account's personal API key. */
  api(account: TestAccount, path: string, init?: RequestInit): Promise<Response>
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>
  /** The project's events (newest first) once at least `count` are stored. */
  eventsOf(account: TestAccount, count: number, query?: string): Promise<Array<Record<string, any>>>
  /** The person of a distinct id once it exists and `ready` holds for it (persons are made as events are stored). */
  personOf(account: TestAccount, distinctId: string, ready?: (person: Record<string, any>) => boolean): Promise<Record<string, any>>
  stop(): Promise<void>
}

/** The whole service, started in this process on an ephemeral port, as `npm start` runs it. */
export async function startTestService(overrides: Partial<Record<keyof Config, string | number | boolean>> = {}): Promise<TestService> {
  const databaseUrl = await databaseUrlForTests()
  const config = testConfig({ ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), ...overrides })
  const app = await startApp(config, createLogger(config))
  const baseUrl = `http://127.0.0.1:${app.port}`
  const api = (account: TestAccount, path: string, init: RequestInit = {}) =>
    fetch(`${baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${account.personalApiKey}`, 'content-type': 'application/json', ...init.headers },
    })
  return {
    app,
    config,
    baseUrl,
    account: () => createTestAccount(app.deps.sql),
    api,
    post: (path, body, headers = {}) =>
      fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body),
      }),
    async eventsOf(account, count, query = '') {
      return waitFor(
        async () => {
          const res = await api(account, `/api/projects/${account.projectId}/events/?limit=1000${query}`)
          const page = (await res.json()) as { results: Array<Record<string, any>> }
          return page.results.length >= count ? page.results : undefined
        },
        { what: `${count} stored events`, timeoutMs: 15_000 },
      )
    },
    personOf(account, distinctId, ready = () => true) {
      return waitFor(
        async () => {
          const res = await api(account, `/api/projects/${account.projectId}/persons/?distinct_id=${encodeURIComponent(distinctId)}`)
          const person = ((await res.json()) as { results: Array<Record<string, any>> }).results[0]
          return person && ready(person) ? person : undefined
        },
        { what: `the person of ${distinctId}`, timeoutMs: 15_000 },
      )
    },
    async stop() {
      await app.stop()
      removeTestDirs()
    },
  }
}

/**
 * Starts one service and one account for the test file, stopped after its last test; the
 * callback hands them to the file's variables.
 */
export function useTestService(
  ready: (service: TestService, account: TestAccount) => void,
  overrides: Parameters<typeof startTestService>[0] = {},
  options: {
    /**
     * A PostgreSQL database of its own (on a PostgreSQL server): for a file whose tests need
     * their service to be the one that runs what every server takes from the queue (plugin jobs,
     * webhook deliveries), and not another test file's service, which logs to its own ClickHouse.
     */
    ownDatabase?: boolean
  } = {},
): void {
  let service: TestService | undefined
  let isolated: Awaited<ReturnType<typeof isolatedDatabaseUrl>>
  beforeAll(async () => {
    isolated = options.ownDatabase ? await isolatedDatabaseUrl() : undefined
    service = await startTestService({ ...(isolated ? { DATABASE_URL: isolated.url } : {}), ...overrides })
    ready(service, await service.account())
  })
  afterAll(async () => {
    await service?.stop()
    await isolated?.drop()
  })
}

/**
 * Takes the events table away (renamed, so every insert fails and the consumer keeps retrying)
 * or brings it back: ClickHouse unable to store events, for a test.
 */
export async function setEventsTable(service: TestService, online: boolean): Promise<void> {
  const [from, to] = online ? ['events_offline', 'events'] : ['events', 'events_offline']
  await service.app.deps.ch.writer.command({ query: `RENAME TABLE ${from} TO ${to}` })
}
