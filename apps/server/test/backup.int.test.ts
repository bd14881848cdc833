import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { connectClickHouse } from '@burrow/clickhouse'
import { connectPostgres } from '@burrow/postgres'
import { clickHouseDatabaseFor, createTestAccount, databaseUrlForTests, startStandinProcess, waitFor } from '@burrow/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { embeddedEnv, exitCode, SERVER_DIR, startServiceProcess, type ServiceProcess } from './serviceProcess'

// Each CLI run starts a process that compiles the sources: seconds each on a busy machine.
// The embedded PostgreSQL runs as its own OS user when the tests run as root: it must reach the directories.
const root = mkdtempSync(path.join(tmpdir(), 'burrow-backup-'))
chmodSync(root, 0o755)
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** The environment of a service on embedded engines only, in `dataDir`. */
const serviceEnv = (dataDir: string) => embeddedEnv(dataDir, { BATCH_MAX_AGE_MS: '100' })

const cli = (dataDir: string, ...args: string[]) => cliWith(serviceEnv(dataDir), ...args)

const cliWith = (env: NodeJS.ProcessEnv, ...args: string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', ...args], { cwd: SERVER_DIR, env }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  )

async function stop(service: ServiceProcess): Promise<void> {
  const exited = exitCode(service.child)
  service.child.kill('SIGTERM')
  expect(await exited, service.output().slice(-3000)).toBe(0)
}

interface Account {
  project_api_key: string
  personal_api_key: string
  project_id: number
}

/** How many events the project holds, and how many distinct uuids among them, as a query reads them. */
async function storedCounts(service: ServiceProcess, account: Account): Promise<{ rows: number; uuids: number }> {
  const res = await fetch(`${service.baseUrl}/api/projects/${account.project_id}/query/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.personal_api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: { kind: 'HogQLQuery', query: 'select count(), uniqExact(uuid) from events' },
      refresh: 'force_blocking',
    }),
  })
  expect(res.status).toBe(200)
  const [[rows, uuids]] = ((await res.json()) as { results: [[number, number]] }).results
  return { rows: Number(rows), uuids: Number(uuids) }
}

/** Every event's id, page by page (read once nothing is being stored, so that the pages do not shift). */
async function storedIds(service: ServiceProcess, account: Account): Promise<string[]> {
  const ids: string[] = []
  for (let offset = 0; ; offset += 1000) {
    const res = await fetch(`${service.baseUrl}/api/projects/${account.project_id}/events/?limit=1000&offset=${offset}`, {
      headers: { authorization: `Bearer ${account.personal_api_key}` },
    })
    const page = (await res.json()) as { results: Array<{ id: string }>; next: string | null }
    ids.push(...page.results.map((e) => e.id))
    if (!page.next) return ids
  }
}

describe('npm run cli -- backup / restore', () => {
  it('backs up a running service under load, and a service started on the restored directory, beside the original, reads every event acknowledged before and writes to a PostgreSQL of its own', async () => {
    const original = path.join(root, 'original')
    const service = await startServiceProcess(serviceEnv(original))
    let account: Account
    const acknowledged: string[] = []
    let loading = true
    let load: Promise<void> | undefined
    try {
      const created = await cli(original, 'create-user', '--email', 'backup@example.com', '--organization', 'Backups', '--json')
      expect(created.code, created.stderr).toBe(0)
      account = JSON.parse(created.stdout.trim()) as Account
      load = (async () => {
        while (loading) {
          const batch = Array.from({ length: 20 }, () => ({
            event: 'backed up',
            distinct_id: `u${acknowledged.length % 50}`,
            uuid: randomUUID(),
          }))
          const res = await fetch(`${service.baseUrl}/batch/`, {
            method: 'POST',
            body: JSON.stringify({ api_key: account.project_api_key, batch }),
          })
          if (res.status === 200) acknowledged.push(...batch.map((e) => e.uuid))
        }
      })()
      await waitFor(() => acknowledged.length >= 2_000 || undefined, { what: '2,000 acknowledged events', timeoutMs: 30_000 })
      // Everything acknowledged before the backup starts must be in it; the load goes on meanwhile.
      const before = [...acknowledged]
      const backup = await cli(original, 'backup', '--to', path.join(root, 'backup'))
      expect(backup.code, backup.stderr).toBe(0)
      expect(backup.stdout).toContain('backed up PostgreSQL, ClickHouse, the spool into')
      loading = false
      await load

      // A second backup into the same directory is refused, by the running service, with the reason.
      const again = await cli(original, 'backup', '--to', path.join(root, 'backup'))
      expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('is not empty') })

      const restoredDir = path.join(root, 'restored')
      const restored = await cli(restoredDir, 'restore', '--from', path.join(root, 'backup'))
      expect(restored.code, restored.stderr).toBe(0)
      // The original keeps running on its own directory while the copy starts on another port.
      const copy = await startServiceProcess(serviceEnv(restoredDir))
      try {
        // The restored spool is stored at the start: read until two counts a second apart agree.
        let previous = -1
        const counts = await waitFor(
          async () => {
            const now = await storedCounts(copy, account)
            const settled = now.rows === previous && now.rows >= before.length
            previous = now.rows
            return settled ? now : undefined
          },
          { what: 'the restored service done storing its spool', timeoutMs: 30_000, intervalMs: 1_000 },
        )
        // Nothing is stored twice, though rows of the spool's copy may have been stored before ClickHouse's copy was taken.
        expect(counts.uuids).toBe(counts.rows)
        const listed = await storedIds(copy, account)
        expect(listed.length).toBe(counts.rows)
        const stored = new Set(listed)
        expect(before.filter((id) => !stored.has(id))).toEqual([])

        // The restored directory's record carried the original's port and its running owner: the copy must not use that server.
        const postgresOf = (s: ServiceProcess) => /postgres: embedded postgres:\/\/127\.0\.0\.1:(\d+)/.exec(s.output())?.[1]
        expect(postgresOf(copy)).toMatch(/^\d+$/)
        expect(postgresOf(copy)).not.toBe(postgresOf(service))
        const headers = { authorization: `Bearer ${account.personal_api_key}`, 'content-type': 'application/json' }
        const made = await fetch(`${copy.baseUrl}/api/projects/`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: 'Made in the copy' }),
        })
        expect(made.status).toBe(201)
        const projectNames = async (s: ServiceProcess) =>
          ((await (await fetch(`${s.baseUrl}/api/projects/`, { headers })).json()) as { results: Array<{ name: string }> }).results.map(
            (p) => p.name,
          )
        expect(await projectNames(copy)).toContain('Made in the copy')
        expect(await projectNames(service)).not.toContain('Made in the copy')
      } finally {
        await stop(copy)
      }
    } finally {
      loading = false
      await load
      await stop(service)
    }
  }, 480_000)

  it('refuses to restore into a DATA_DIR that is not empty, or from a directory that holds no backup', async () => {
    const used = path.join(root, 'used')
    mkdirSync(used)
    writeFileSync(path.join(used, 'something'), 'x')
    expect(await cli(used, 'restore', '--from', path.join(root, 'backup'))).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`DATA_DIR ${used} is not empty`),
    })
    expect(await cli(path.join(root, 'fresh'), 'restore', '--from', used)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining(`${used} holds no complete backup`),
    })
  }, 120_000)
})

describe('the CLI on a DATA_DIR that holds no data of the service', () => {
  it.each([
    ['dlq', 'list'],
    ['create-user', '--email', 'x@example.com', '--organization', 'X'],
    ['backup', '--to', '/tmp/unused'],
  ])(
    'refuses %s with a message naming the directory, and creates nothing there',
    async (...args) => {
      const mistyped = path.join(root, 'mistyped')
      const result = await cli(mistyped, ...args)
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`DATA_DIR ${mistyped} holds no data of the service`)
      expect(result.stderr).not.toMatch(/UNKNOWN_TABLE|\n\s+at /)
      expect(existsSync(path.join(mistyped, 'postgres'))).toBe(false)
      expect(existsSync(path.join(mistyped, 'clickhouse'))).toBe(false)
    },
    120_000,
  )
})

describe('npm run cli -- backup / restore of an instance whose ClickHouse and PostgreSQL are servers', () => {
  it('stores none of a restored spool twice when the original instance stored those rows in the shared ClickHouse first', async () => {
    const databaseUrl = await databaseUrlForTests()
    if (!databaseUrl) throw new Error('instances share one PostgreSQL server: set DATABASE_URL (or make Docker reachable)')
    const standin = await startStandinProcess()
    const pg = await connectPostgres({ databaseUrl, dataDir: root, maxConnections: 2 })
    const database = clickHouseDatabaseFor(path.join(root, 'shared-clickhouse'))
    const ch = await connectClickHouse({ url: standin.url, database, dataDir: root })
    // The rows wait in the spool (no batch is due for ten minutes) until the backup has copied them.
    const envOf = (dataDir: string) =>
      embeddedEnv(dataDir, {
        DATABASE_URL: databaseUrl,
        CLICKHOUSE_URL: standin.url,
        CLICKHOUSE_DATABASE: database,
        CLICKHOUSE_CLUSTER: '',
        BATCH_MAX_AGE_MS: '600000',
        BATCH_MAX_ROWS: '100000',
      })
    const started: ServiceProcess[] = []
    try {
      const original = path.join(root, 'server-original')
      const service = await startServiceProcess(envOf(original))
      started.push(service)
      const account = await createTestAccount(pg.sql)
      const uuids: string[] = []
      for (let i = 0; i < 60; i++) {
        const batch = Array.from({ length: 20 }, () => ({ event: 'spooled', distinct_id: `u${i}`, uuid: randomUUID() }))
        const res = await fetch(`${service.baseUrl}/batch/`, {
          method: 'POST',
          body: JSON.stringify({ api_key: account.projectToken, batch }),
        })
        expect(res.status).toBe(200)
        uuids.push(...batch.map((e) => e.uuid))
      }
      const backupDir = path.join(root, 'server-backup')
      const backup = await cliWith(envOf(original), 'backup', '--to', backupDir)
      expect(backup.code, backup.stderr).toBe(0)
      expect(backup.stdout).toContain('ClickHouse is a server')

      // SIGTERM stores the spool: the shared ClickHouse now holds the 1,200 rows the backup's spool holds too.
      await stop(service)
      started.pop()
      // Events stored twice show in the daily counts for good (event definitions' volumes read them); the
      // events table itself replaces copies of a row when it merges, at a time of its choosing.
      const counts = async () => {
        const result = await ch.reader.query({
          query: `SELECT (SELECT uniqExact(uuid) FROM events WHERE team_id = {team:Int64}) AS uuids,
            (SELECT sum(events) FROM event_daily_counts WHERE team_id = {team:Int64}) AS counted`,
          query_params: { team: account.projectId },
          format: 'JSONEachRow',
        })
        const [row] = await result.json<{ uuids: string; counted: string }>()
        return { uuids: Number(row!.uuids), counted: Number(row!.counted) }
      }
      expect(await counts()).toEqual({ uuids: 1200, counted: 1200 })

      const restoredDir = path.join(root, 'server-restored')
      const restored = await cliWith(envOf(restoredDir), 'restore', '--from', backupDir)
      expect(restored.code, restored.stderr).toBe(0)
      // Stored in many batches, each looked up before it is inserted.
      const copy = await startServiceProcess({ ...envOf(restoredDir), BATCH_MAX_ROWS: '40' })
      started.push(copy)
      // The restored segments are read at the start, and removed once their rows are dealt with.
      const lanesOf = (spool: string) => [
        spool,
        ...readdirSync(spool)
          .filter((n) => n.startsWith('lane-'))
          .map((n) => path.join(spool, n)),
      ]
      const restoredSegments = lanesOf(path.join(backupDir, 'spool')).flatMap((lane) =>
        readdirSync(lane)
          .filter((n) => n.endsWith('.seg'))
          .map((n) => path.join(restoredDir, path.relative(backupDir, lane), n)),
      )
      expect(restoredSegments.length).toBeGreaterThan(0)
      await waitFor(() => (restoredSegments.some((file) => existsSync(file)) ? undefined : true), {
        what: 'the restored spool dealt with',
        timeoutMs: 60_000,
      })
      expect(await counts()).toEqual({ uuids: 1200, counted: 1200 })
      // And the restored instance says what it left out.
      const leftOut = [...copy.output().matchAll(/(\d+) of (\d+) events were stored already/g)].reduce((sum, m) => sum + Number(m[1]), 0)
      expect(leftOut).toBe(1200)
    } finally {
      for (const s of started) await stop(s)
      await ch.close()
      await pg.close()
      await standin.stop()
    }
  }, 300_000)
})
