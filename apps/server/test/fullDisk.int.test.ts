import { execFile, execFileSync } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { waitFor } from '@burrow/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { exitCode, SERVER_DIR, startServiceProcess, type ServiceProcess } from './serviceProcess'

const MiB = 1024 * 1024
const root = mkdtempSync(path.join(tmpdir(), 'burrow-full-disk-'))
chmodSync(root, 0o755)
const dataDir = path.join(root, 'data')
mkdirSync(dataDir)

/** A small file system of its own for DATA_DIR (a tmpfs), where the test may mount one (root, outside most containers). */
function mountSmallFileSystem(): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=0755', 'tmpfs', dataDir], { stdio: 'pipe' })
    return undefined
  } catch (err) {
    return String((err as { stderr?: Buffer }).stderr ?? err).trim()
  }
}
const cannotMount = mountSmallFileSystem()
if (cannotMount)
  console.warn(`skipping the full-disk test: it mounts a 64 MiB tmpfs as DATA_DIR, which this environment refuses (${cannotMount})`)

afterAll(() => {
  if (!cannotMount) execFileSync('umount', ['-l', dataDir])
  rmSync(root, { recursive: true, force: true })
})

// ClickHouse is embedded in DATA_DIR, on the small file system; PostgreSQL and Redis are the tests' servers.
const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  BATCH_MAX_AGE_MS: '100',
  SPOOL_SEGMENT_BYTES: String(MiB),
  // Capture stops while less than 24 MiB (and a segment) is free: the events fill the rest.
  DISK_RESERVE_BYTES: String(24 * MiB),
})

async function stop(service: ServiceProcess): Promise<void> {
  const exited = exitCode(service.child)
  service.child.kill('SIGTERM')
  expect(await exited, service.output().slice(-3000)).toBe(0)
}

describe.skipIf(cannotMount !== undefined)('DATA_DIR on a file system that fills up', () => {
  it('answers 503 under load at the reserve, and once there is room again every acknowledged event is read after a restart', async () => {
    const service = await startServiceProcess(env())
    const created = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/admin/cli.ts',
        'create-user',
        '--email',
        `full-disk-${randomUUID()}@example.com`,
        '--organization',
        'Full disk',
        '--json',
      ],
      { cwd: SERVER_DIR, env: env() },
    )
    const account = JSON.parse(created.stdout.trim()) as { project_api_key: string; personal_api_key: string; project_id: number }

    const acknowledged: string[] = []
    let refusals = 0
    let refusal: unknown
    // Read as each refusal comes: storing what waits frees the spool's segments, so the disk may
    // be above its reserve again by the time a probe is answered (more so once the clients stop).
    const readinessWhileRefusing: Array<Promise<{ status: number; body: unknown }>> = []
    const client = async () => {
      // Random padding: ClickHouse cannot compress it away, so the events take room on disk.
      while (refusals < 50) {
        const batch = Array.from({ length: 50 }, () => ({
          event: 'filling',
          distinct_id: 'u',
          uuid: randomUUID(),
          properties: { pad: randomBytes(600).toString('base64') },
        }))
        const res = await fetch(`${service.baseUrl}/batch/`, {
          method: 'POST',
          body: JSON.stringify({ api_key: account.project_api_key, batch }),
        })
        if (res.status === 200) acknowledged.push(...batch.map((e) => e.uuid))
        else {
          refusals++
          refusal = { status: res.status, body: await res.json() }
          readinessWhileRefusing.push(fetch(`${service.baseUrl}/_readyz`).then(async (r) => ({ status: r.status, body: await r.json() })))
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      }
    }
    try {
      await Promise.race([
        Promise.all(Array.from({ length: 4 }, client)),
        new Promise((_, reject) => setTimeout(() => reject(new Error(`no 503 after ${acknowledged.length} events`)), 120_000)),
      ])
      // The client is told the reason: the disk, not a backlog of events to store.
      expect(refusal).toMatchObject({
        status: 503,
        body: { type: 'server_error', code: 'service_unavailable', detail: expect.stringContaining("The service's disk is full") },
      })
      expect(acknowledged.length).toBeGreaterThan(1000)
      const free = statfsSync(dataDir)
      // The reserve held: the disk never filled, ClickHouse had room to store and merge.
      expect(free.bavail * free.bsize).toBeGreaterThan(8 * MiB)
      // An orchestrator sees it too: while capture refuses, the instance is not ready, and the disk is the reason.
      const probes = await Promise.all(readinessWhileRefusing)
      const notReady = probes.filter((probe) => probe.status === 503)
      expect(notReady.length, JSON.stringify(probes.map((probe) => probe.status))).toBeGreaterThan(0)
      for (const probe of notReady)
        expect((probe.body as { checks: Record<string, { status: string }> }).checks.disk).toMatchObject({ status: 'failing' })

      // The operator is told too: a line when the free space fell below the reserve, not one per refused request.
      const crossings = (direction: 'below the reserve' | 'above the reserve again') =>
        service
          .output()
          .split('\n')
          .filter((line) => line.includes(`file system is ${direction}`))
      expect(crossings('below the reserve').length).toBeGreaterThan(0)
      expect(crossings('below the reserve').length).toBeLessThan(refusals)

      // Room again: the file system grows, and capture takes events again without a restart.
      execFileSync('mount', ['-o', 'remount,size=256m', dataDir])
      const after = await (async () => {
        for (let i = 0; i < 50; i++) {
          const res = await fetch(`${service.baseUrl}/capture/`, {
            method: 'POST',
            body: JSON.stringify({ api_key: account.project_api_key, event: 'after', distinct_id: 'u', uuid: randomUUID() }),
          })
          if (res.status === 200) return res.status
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
        return 503
      })()
      expect(after).toBe(200)
      // Each fall below the reserve has its line when the space came back, and the last one too.
      await waitFor(() => (crossings('above the reserve again').length === crossings('below the reserve').length ? true : undefined), {
        what: 'a line for the space back above the reserve',
      })
      expect(crossings('above the reserve again').at(-1)).toContain('capture takes new events again')
    } finally {
      await stop(service)
    }

    const again = await startServiceProcess(env())
    try {
      expect(again.output()).not.toContain('is detached')
      const stored = new Set<string>()
      for (let offset = 0; ; offset += 1000) {
        const page = (await (
          await fetch(`${again.baseUrl}/api/projects/${account.project_id}/events/?limit=1000&offset=${offset}&event=filling`, {
            headers: { authorization: `Bearer ${account.personal_api_key}` },
          })
        ).json()) as { results: Array<{ id: string }>; next: string | null }
        for (const e of page.results) stored.add(e.id)
        if (!page.next) break
      }
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([])
    } finally {
      await stop(again)
    }
  }, 480_000) // two starts and a stop of a service that fills a disk: minutes on a busy two-core machine
})
