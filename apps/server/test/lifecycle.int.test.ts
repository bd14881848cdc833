import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { clickHouseEnvFor, waitFor } from '@burrow/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildServer, embeddedEnv, exitCode, SERVER_DIR, startServiceProcess, startWithNpmStart, type BuiltServer } from './serviceProcess'

const dataDir = mkdtempSync(path.join(tmpdir(), 'burrow-lifecycle-'))
chmodSync(dataDir, 0o755)

/**
 * The environment of `npm start` on embedded defaults: no server URLs, except the suite's
 * ClickHouse server in its server mode (so that a SIGKILL mid-load is survived over HTTP too).
 */
const serviceEnv = (overrides: NodeJS.ProcessEnv = {}) =>
  embeddedEnv(dataDir, { ...clickHouseEnvFor(dataDir), BATCH_MAX_AGE_MS: '60000', ...overrides })

const spoolSegments = () => readdirSync(path.join(dataDir, 'spool')).filter((f) => f.endsWith('.seg'))

// These run the service and the CLI as `npm start` and `npm run cli` do: built, plain JavaScript.
let built: BuiltServer
beforeAll(async () => {
  built = await buildServer()
})
const startService = (env: NodeJS.ProcessEnv = {}) => startServiceProcess(serviceEnv(env), built)
const runCli = (args: string[]) => promisify(execFile)(process.execPath, [built.cli, ...args], { cwd: SERVER_DIR, env: serviceEnv() })

afterAll(() => {
  built?.remove()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('the service process on embedded defaults', () => {
  it('bootstraps, serves the CLI while running, stores accepted events on SIGTERM and finds them after a restart', async () => {
    const first = await startService()
    expect(first.output()).toContain('created the first account')
    expect((await fetch(`${first.baseUrl}/_health`)).status).toBe(200)

    // The CLI reaches the running service's embedded PostgreSQL through DATA_DIR.
    const cli = await runCli(['create-user', '--email', 'cli@example.com', '--organization', 'CLI org', '--json'])
    const account = JSON.parse(cli.stdout.trim()) as Record<string, string | number>
    expect(account).toMatchObject({ personal_api_key: expect.stringMatching(/^phx_/), user_id: expect.any(Number) })
    expect(account.organization_id).toMatch(/^[0-9a-f-]{36}$/)

    // Batches wait up to a minute before they are inserted: only the shutdown can store these.
    const batch = Array.from({ length: 50 }, (_, i) => ({ event: 'before shutdown', distinct_id: `u${i}` }))
    const res = await fetch(`${first.baseUrl}/batch/`, {
      method: 'POST',
      body: JSON.stringify({ api_key: account.project_api_key, batch }),
    })
    expect(res.status).toBe(200)
    const exited = exitCode(first.child)
    first.child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(spoolSegments()).toEqual([])

    const second = await startService()
    try {
      expect(second.output()).not.toContain('created the first account')
      const page = await (
        await fetch(`${second.baseUrl}/api/projects/${account.project_id}/events/`, {
          headers: { authorization: `Bearer ${account.personal_api_key}` },
        })
      ).json()
      expect(page.count).toBe(50)
    } finally {
      const stopped = exitCode(second.child)
      second.child.kill('SIGTERM')
      expect(await stopped).toBe(0)
    }
  }, 180_000)

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'stores what it accepted and exits when %s is sent to the process `npm start` created',
    async (signal) => {
      const service = await startWithNpmStart(serviceEnv())
      const cli = await runCli(['create-user', '--email', `${signal.toLowerCase()}@example.com`, '--organization', signal, '--json'])
      const account = JSON.parse(cli.stdout.trim()) as { project_api_key: string }
      // Batches wait up to a minute before they are inserted: only the drain can store these.
      const batch = Array.from({ length: 20 }, (_, i) => ({ event: 'before the signal', distinct_id: `u${i}` }))
      const res = await fetch(`${service.baseUrl}/batch/`, {
        method: 'POST',
        body: JSON.stringify({ api_key: account.project_api_key, batch }),
      })
      expect(res.status).toBe(200)

      const exited = exitCode(service.child)
      service.child.kill(signal)
      await exited
      // npm has gone, and so has the service it started: nothing answers on the port any more.
      await waitFor(
        () =>
          fetch(`${service.baseUrl}/_health`).then(
            () => false,
            () => true,
          ),
        { what: 'the port closed' },
      )
      expect(service.output()).toContain(`${signal}: stopping, storing accepted events first`)
      expect(service.output()).toContain('"msg":"stopped"')
      expect(spoolSegments()).toEqual([])
    },
    180_000,
  )

  it('loses no acknowledged event and stores none twice when killed with SIGKILL in the middle of a load', async () => {
    // Small, frequent inserts, so that the kill finds some rows stored and some only on disk.
    await killMidLoadAndRestart(
      'load@example.com',
      { CAPTURE_THREADS: '0', BATCH_MAX_AGE_MS: '20', BATCH_MAX_ROWS: '200' },
      { CAPTURE_THREADS: '0' },
    )
  }, 180_000)

  it('stores every lane of capture threads killed mid-load, after a restart with fewer threads', async () => {
    // The restart has no capture threads: the spool lane of the second thread is only drained.
    await killMidLoadAndRestart(
      'threads@example.com',
      { CAPTURE_THREADS: '2', BATCH_MAX_AGE_MS: '20', BATCH_MAX_ROWS: '200' },
      { CAPTURE_THREADS: '0' },
    )
    const lane = path.join(dataDir, 'spool', 'lane-1')
    expect(existsSync(lane) ? readdirSync(lane).filter((f) => f.endsWith('.seg')) : []).toEqual([])
  }, 180_000)
})

/**
 * Loads a service started with `firstEnv` from four clients, kills it with SIGKILL, restarts it
 * with `secondEnv`, and checks that every acknowledged event is stored exactly once and that a
 * SIGTERM afterwards leaves an empty spool.
 */
async function killMidLoadAndRestart(email: string, firstEnv: NodeJS.ProcessEnv, secondEnv: NodeJS.ProcessEnv): Promise<void> {
  const first = await startService(firstEnv)
  const cli = await runCli(['create-user', '--email', email, '--organization', 'Load org', '--json'])
  const account = JSON.parse(cli.stdout.trim()) as { project_api_key: string; personal_api_key: string; project_id: number }

  const acknowledged = new Set<string>()
  let killed = false
  const client = async () => {
    while (!killed) {
      const batch = Array.from({ length: 20 }, () => ({ event: 'load', distinct_id: 'u', uuid: randomUUID() }))
      try {
        // A connection per request, so that the kernel spreads them over the capture threads.
        const res = await fetch(`${first.baseUrl}/batch/`, {
          method: 'POST',
          headers: { connection: 'close' },
          body: JSON.stringify({ api_key: account.project_api_key, batch }),
        })
        if (res.status === 200) for (const e of batch) acknowledged.add(e.uuid)
      } catch {
        // The connection died with the process: these were never acknowledged.
      }
    }
  }
  const clients = Array.from({ length: 4 }, client)
  // In the middle of the load: several of the consumer's insert cycles in, with requests in flight.
  await waitFor(() => acknowledged.size >= 3_000, { what: '3,000 acknowledged events', timeoutMs: 30_000 })
  const exited = exitCode(first.child)
  first.child.kill('SIGKILL')
  await exited
  killed = true
  await Promise.all(clients)
  expect(acknowledged.size).toBeGreaterThan(100)

  const second = await startService(secondEnv)
  try {
    const headers = { authorization: `Bearer ${account.personal_api_key}` }
    const listed = await waitFor(
      async () => {
        const ids: string[] = []
        let count: number
        for (let offset = 0; ; offset += 1000) {
          const page = await (
            await fetch(`${second.baseUrl}/api/projects/${account.project_id}/events/?limit=1000&offset=${offset}`, { headers })
          ).json()
          count = page.count
          ids.push(...page.results.map((e: { id: string }) => e.id))
          if (!page.next) break
        }
        // Pages read while the restart is still storing rows may disagree with the count: read again.
        expect(ids.length).toBe(count)
        const stored = new Set(ids)
        expect([...acknowledged].filter((uuid) => !stored.has(uuid))).toEqual([])
        return ids
      },
      // The restart stores what the spool holds (several thousand rows, a lane with no thread
      // of its own included) while CI runs other files beside this one on two cores: a minute.
      { what: 'every acknowledged event listed after the restart', timeoutMs: 60_000, intervalMs: 250 },
    )
    expect(new Set(listed).size).toBe(listed.length)
  } finally {
    const stopped = exitCode(second.child)
    second.child.kill('SIGTERM')
    expect(await stopped, second.output().slice(-3000)).toBe(0)
  }
  expect(spoolSegments()).toEqual([])
}
