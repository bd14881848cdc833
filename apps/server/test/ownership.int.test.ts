import { execFile, spawn } from 'node:child_process'
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { waitFor } from '@burrow/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { lockDataDir } from '../src/ownership/dataDirLock'
import { embeddedEnv, exitCode, SERVER_DIR, startServiceProcess, type ServiceProcess } from './serviceProcess'

const dirs: string[] = []
function newDataDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'burrow-ownership-'))
  chmodSync(dir, 0o755)
  dirs.push(dir)
  return dir
}
const running = new Set<ServiceProcess>()
afterAll(async () => {
  for (const service of running) service.child.kill('SIGKILL')
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

async function start(env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const service = await startServiceProcess(env)
  running.add(service)
  return service
}

/** A service that must not start: its exit code and everything it wrote. */
function refusedStart(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: SERVER_DIR, env })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  return exitCode(child).then((code) => {
    clearTimeout(timer)
    return { code, output }
  })
}

async function stop(service: ServiceProcess): Promise<number | null> {
  const exited = exitCode(service.child)
  service.child.kill('SIGTERM')
  const code = await exited
  running.delete(service)
  return code
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const postmasterPid = (dataDir: string) => Number.parseInt(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8'), 10)

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv: Server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

describe('one instance per data directory', () => {
  it('refuses a second instance naming the owner, serves the CLI meanwhile, and starts again after kill -9, then stops the PostgreSQL it took over', async () => {
    const dataDir = newDataDir()
    const first = await start(embeddedEnv(dataDir))

    const second = await refusedStart(embeddedEnv(dataDir))
    expect(second.code).toBe(1)
    expect(second.output).toContain(`DATA_DIR ${dataDir} is in use by another Burrow process (pid ${first.child.pid})`)
    // The refused instance touched nothing: the first still serves.
    expect((await fetch(`${first.baseUrl}/_health`)).status).toBe(200)

    // The CLI works beside the running service, through its PostgreSQL and its admin socket.
    const cli = (args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', ...args], {
        cwd: SERVER_DIR,
        env: embeddedEnv(dataDir),
      })
    const created = await cli(['create-user', '--email', 'beside@example.com', '--organization', 'Beside', '--json'])
    expect(JSON.parse(created.stdout)).toMatchObject({ personal_api_key: expect.stringMatching(/^phx_/) })
    expect((await cli(['dlq', 'list'])).stdout).toBe('')
    // The service's PostgreSQL is the service's to stop, not the CLI's.
    expect(isRunning(postmasterPid(dataDir))).toBe(true)
    expect(
      (
        await fetch(`${first.baseUrl}/api/users/@me/`, {
          headers: { authorization: `Bearer ${JSON.parse(created.stdout).personal_api_key}` },
        })
      ).status,
    ).toBe(200)

    // kill -9 leaves the embedded PostgreSQL running; the kernel releases the directory's lock.
    const postgresPid = postmasterPid(dataDir)
    const killed = exitCode(first.child)
    first.child.kill('SIGKILL')
    await killed
    running.delete(first)
    expect(isRunning(postgresPid)).toBe(true)

    const third = await start(embeddedEnv(dataDir))
    expect(third.output()).toContain(`took over the embedded PostgreSQL`)
    expect(postmasterPid(dataDir)).toBe(postgresPid)
    expect(await stop(third)).toBe(0)
    // Stopped with the service that took it over, not left behind.
    expect(isRunning(postgresPid)).toBe(false)
  }, 240_000)
})

describe('what DATA_DIR lets other local users read', () => {
  const NOBODY = 65534
  /** Whether the unprivileged user `nobody` can read the file: another local user. */
  const nobodyReads = (file: string) =>
    promisify(execFile)('cat', [file], { uid: NOBODY, gid: NOBODY }).then(
      () => true,
      () => false,
    )
  /** Every entry under `dir` (links not followed) that group or others may read or write, as `path mode`. */
  function openToOthers(dir: string): string[] {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' }).flatMap((name) => {
      const mode = lstatSync(path.join(dir, name)).mode
      return (mode & 0o066) !== 0 && !lstatSync(path.join(dir, name)).isSymbolicLink() ? [`${name} ${(mode & 0o777).toString(8)}`] : []
    })
  }
  /** The first file under `dir` whose name ends with `suffix`. */
  const fileIn = (dir: string, suffix: string) => {
    const name = readdirSync(dir, { recursive: true, encoding: 'utf8' }).find((n) => n.endsWith(suffix))
    expect(name, `a ${suffix} file under ${dir}`).toBeDefined()
    return path.join(dir, name!)
  }

  it('is nothing: the service writes its files for itself, and makes an existing DATA_DIR private at start, saying so', async () => {
    const dataDir = newDataDir()
    const first = await start(embeddedEnv(dataDir))
    const cli = (args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', ...args], {
        cwd: SERVER_DIR,
        env: embeddedEnv(dataDir),
      })
    const user = JSON.parse((await cli(['create-user', '--email', 'private@example.com', '--organization', 'P', '--json'])).stdout) as {
      personal_api_key: string
      project_id: number
    }
    const captured = await fetch(`${first.baseUrl}/capture/`, {
      method: 'POST',
      body: JSON.stringify({ api_key: user.personal_api_key, project_id: user.project_id, event: 'private', distinct_id: 'd' }),
    })
    expect(captured.status).toBe(200)
    await waitFor(
      async () => {
        const res = await fetch(`${first.baseUrl}/api/projects/${user.project_id}/events/`, {
          headers: { authorization: `Bearer ${user.personal_api_key}` },
        })
        return ((await res.json()) as { results: unknown[] }).results.length === 1 ? true : undefined
      },
      { what: 'the event stored', timeoutMs: 30_000 },
    )
    // As root, the embedded PostgreSQL runs as `postgres`, which must pass through DATA_DIR: it may enter, not list.
    expect(statSync(dataDir).mode & 0o777).toBe(process.getuid?.() === 0 ? 0o711 : 0o700)
    expect(openToOthers(dataDir)).toEqual([])
    expect(await nobodyReads(fileIn(path.join(dataDir, 'spool'), '.seg'))).toBe(false)
    expect(await nobodyReads(fileIn(path.join(dataDir, 'clickhouse'), '.sql'))).toBe(false)
    expect(await stop(first)).toBe(0)

    // An earlier release left the spool, ClickHouse's data and DATA_DIR itself readable by everyone.
    await promisify(execFile)('chmod', ['-R', 'go+rX', path.join(dataDir, 'spool'), path.join(dataDir, 'clickhouse')])
    chmodSync(dataDir, 0o755)
    const table = fileIn(path.join(dataDir, 'clickhouse'), '.sql')
    expect(await nobodyReads(table)).toBe(true)

    const second = await start(embeddedEnv(dataDir))
    expect(second.output()).toContain('DATA_DIR let other users read what it holds; made private: ')
    expect(second.output()).toContain(`${path.join(dataDir, 'spool')} 0755 -> 0700`)
    expect(second.output()).toContain(`${path.join(dataDir, 'clickhouse')} 0755 -> 0700`)
    expect(await nobodyReads(table)).toBe(false)
    expect(readdirSync(dataDir).map((name) => lstatSync(path.join(dataDir, name)).mode & 0o077)).not.toContain(0o055)
    expect((await fetch(`${second.baseUrl}/_health`)).status).toBe(200)
    expect(await stop(second)).toBe(0)
  }, 420_000)
})

/** A service on the tests' PostgreSQL server when there is one: no embedded server to initialise. */
function serverEnv(dataDir: string, overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...embeddedEnv(dataDir, overrides), ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}) }
}

describe('the CLI on a data directory held by a process that does not answer on its admin socket', () => {
  it('refuses to open the storage itself, naming the owner', async () => {
    const dataDir = newDataDir()
    // As a service does while it starts: the directory is held, the admin socket not open yet.
    const held = lockDataDir(dataDir)
    try {
      const result = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/admin/cli.ts', 'dlq', 'list'], {
        cwd: SERVER_DIR,
        env: serverEnv(dataDir),
      }).then(
        () => ({ code: 0, stderr: '' }),
        (e: { code: number; stderr: string }) => e,
      )
      expect(result.code).toBe(1)
      expect(result.stderr).toContain(`DATA_DIR ${dataDir} is in use by another Burrow process (pid ${process.pid})`)
    } finally {
      held.release()
    }
  }, 60_000)
})

describe('one instance per port', () => {
  it('refuses a port another instance serves, while its own capture threads share it', async () => {
    const port = String(await freePort())
    const first = await start(serverEnv(newDataDir(), { PORT: port, CAPTURE_THREADS: '2' }))
    try {
      expect(first.baseUrl).toBe(`http://127.0.0.1:${port}`)
      // Both capture threads listen on the port: requests keep being answered on every connection.
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${first.baseUrl}/_health`, { headers: { connection: 'close' } })
        expect(res.status).toBe(200)
      }

      const second = await refusedStart(serverEnv(newDataDir(), { PORT: port }))
      expect(second.code).toBe(1)
      expect(second.output).toContain(`port ${port} on 127.0.0.1 is already served by another process`)
      // Every connection still reaches the first instance, which has no second one to share with.
      await waitFor(async () => ((await fetch(`${first.baseUrl}/_health`)).status === 200 ? true : undefined), { what: 'health' })
    } finally {
      expect(await stop(first)).toBe(0)
    }
  }, 240_000)

  it('refuses a port held by a process that is not Burrow', async () => {
    const port = await freePort()
    const other = createServer().listen(port, '0.0.0.0')
    await new Promise((resolve) => other.once('listening', resolve))
    try {
      const refused = await refusedStart(serverEnv(newDataDir(), { PORT: String(port) }))
      expect(refused.code).toBe(1)
      expect(refused.output).toContain(`port ${port} on 127.0.0.1 is already served by another process`)
    } finally {
      other.close()
    }
  }, 120_000)
})

describe('a start refused before it opens anything', () => {
  it('creates no DATA_DIR when its port is taken', async () => {
    const port = await freePort()
    const other = createServer().listen(port, '0.0.0.0')
    await new Promise((resolve) => other.once('listening', resolve))
    try {
      const parent = path.join(newDataDir(), 'not-yet')
      const refused = await refusedStart(serverEnv(path.join(parent, 'data'), { PORT: String(port) }))
      expect(refused.code).toBe(1)
      expect(refused.output).toContain(`port ${port} on 127.0.0.1 is already served by another process`)
      expect(existsSync(parent)).toBe(false)
    } finally {
      other.close()
    }
  }, 120_000)

  // Only root runs the embedded PostgreSQL as another user, who may be kept out of DATA_DIR.
  it.skipIf(process.getuid?.() !== 0)(
    'creates no DATA_DIR the embedded PostgreSQL could not reach, and says why',
    async () => {
      // mkdtemp's mode 0700: the embedded server's user may not pass through it.
      const closed = mkdtempSync(path.join(tmpdir(), 'burrow-ownership-closed-'))
      dirs.push(closed)
      const dataDir = path.join(closed, 'data')
      const refused = await refusedStart(embeddedEnv(dataDir))
      expect(refused.code).toBe(1)
      expect(refused.output).toContain(`cannot reach its data directory ${path.join(dataDir, 'postgres')}`)
      expect(refused.output).not.toMatch(/\n\s+at /)
      expect(existsSync(dataDir)).toBe(false)
    },
    120_000,
  )
})
