import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { waitFor } from '@burrow/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { embeddedEnv, exitCode, SERVER_DIR, startServiceProcess, type ServiceProcess } from './serviceProcess'

// Each CLI run starts a process that compiles the sources: seconds each on a busy machine.
// The embedded PostgreSQL runs as its own OS user when the tests run as root: it must reach the directories.
const root = mkdtempSync(path.join(tmpdir(), 'burrow-backup-'))
chmodSync(root, 0o755)
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** The environment of a service on embedded engines only, in `dataDir`. */
const serviceEnv = (dataDir: string) => embeddedEnv(dataDir, { BATCH_MAX_AGE_MS: '100' })

const cli = (dataDir: string, ...args: string[]) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: SERVER_DIR, env: serviceEnv(dataDir) }).then(
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
  it('backs up a running service under load, and a service started on the restored directory reads every event acknowledged before', async () => {
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
