import { mkdtempSync, chmodSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { startEmbeddedPostgres } from '@burrow/postgres'
import { databaseUrlForTests, startTcpProxy, waitFor, type TcpProxy, type TestAccount } from '@burrow/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
let pgProxy: TcpProxy
let redisProxy: TcpProxy
const pgDir = mkdtempSync(path.join(tmpdir(), 'burrow-outage-pg-'))
chmodSync(pgDir, 0o755)
let stopEmbedded: (() => Promise<void>) | undefined

/** The same URL, through the proxy. */
function viaProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url)
  parsed.hostname = '127.0.0.1'
  parsed.port = String(proxy.port)
  return parsed.toString()
}

beforeAll(async () => {
  let pgUrl = await databaseUrlForTests()
  if (!pgUrl) {
    const embedded = await startEmbeddedPostgres(pgDir, () => {})
    pgUrl = embedded.url
    stopEmbedded = () => embedded.stop()
  }
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
  const target = (url: string, defaultPort: number) => ({
    host: new URL(url).hostname || '127.0.0.1',
    port: Number(new URL(url).port || defaultPort),
  })
  pgProxy = await startTcpProxy(target(pgUrl, 5432))
  redisProxy = await startTcpProxy(target(redisUrl, 6379))
  service = await startTestService({ DATABASE_URL: viaProxy(pgUrl, pgProxy), REDIS_URL: viaProxy(redisUrl, redisProxy) })
  account = await service.account()
})

afterAll(async () => {
  await service?.stop()
  await pgProxy?.close()
  await redisProxy?.close()
  await stopEmbedded?.()
  rmSync(pgDir, { recursive: true, force: true })
})

describe('while PostgreSQL and Redis are down', () => {
  it('keeps capturing for known project tokens and recovers by itself when they are back', async () => {
    const capture = (event: string, token = account.projectToken) =>
      service.post('/capture/', { api_key: token, event, distinct_id: 'outage-user' })
    expect((await capture('before outage')).status).toBe(200)

    await Promise.all([pgProxy.cut(), redisProxy.cut()])
    try {
      for (let i = 0; i < 5; i++) expect((await capture('during outage')).status).toBe(200)
      const unknown = await capture('unknown project', 'phc_not_cached_anywhere')
      expect(unknown.status).toBe(503)
      expect(await unknown.json()).toMatchObject({ code: 'fetch_team_fail' })
    } finally {
      await Promise.all([pgProxy.restore(), redisProxy.restore()])
    }

    const stored = await service.eventsOf(account, 6)
    expect(stored.filter((e) => e.event === 'during outage')).toHaveLength(5)
    // Event definitions that could not be written during the outage are written afterwards.
    await waitFor(
      async () => {
        const res = await service.api(account, `/api/projects/${account.projectId}/event_definitions/?search=during`)
        if (!res.ok) return undefined
        const page = (await res.json()) as { count: number }
        return page.count === 1 ? true : undefined
      },
      { what: 'the definition of the event captured during the outage', timeoutMs: 20_000 },
    )
    // New tokens resolve again.
    const fresh = await service.account()
    expect((await capture('after outage', fresh.projectToken)).status).toBe(200)
  })
})
