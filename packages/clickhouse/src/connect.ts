// The two kinds of ClickHouse connection, and every way in which they differ, in one place:
//
// - Errors. A server's failures reach us as @clickhouse/client's ClickHouseError (code parsed
//   from the answer), as an answer without an exception (a proxy's status and body), or as a
//   network error (refused, reset, timed out) with no code at all; the embedded engine's as
//   chDB's copy of ClickHouseError and its own errors (`clickhouseCode`). errors.ts reads all
//   of them, and tells a ClickHouse that is not answering from one that refuses.
// - Reads. A pool of reader connections shared fairly by tenants (readerPool.ts), each
//   statement's connection its own while it runs. On a server the statement and, once they are
//   large, its parameters travel in the request's body (serverLanes.ts); on the embedded engine
//   each connection is a chDB session with the statement's parameters and settings SET on it
//   (embeddedLanes.ts).
// - Settings. Over HTTP every setting travels with its request and ends with it. chDB's
//   connection applies a query's clickhouse_settings with SET on a session that outlives the
//   query (they stay for the connection's later queries), and does not know HTTP-only
//   settings (it drops the ones the client sends). So every call gives the settings it needs
//   itself and relies on none an earlier call gave; insertEncoded's go in the statement (chDB)
//   or the request (server) and end with it; HTTP-only ones are added for the server alone.
// - Sessions. A server keeps no state between requests (we never send session_id); each
//   embedded connection is one chDB session, whose reader lanes reset what a statement SET.
//   Nothing may rely on state between two calls.
// - The database. On a server it is named by CLICKHOUSE_DATABASE and created when missing;
//   the embedded engine uses `default` under DATA_DIR.
// - Time. A read is bounded by its own limit on both (the pool answers its caller at the limit
//   and kills the statement); a server's other calls by the request timeout; an embedded
//   insert or DDL runs to its end.
// - A cluster. A server's cluster replicates and takes DDL ON CLUSTER; the embedded engine
//   rehearses the layout as the one shard of a cluster of itself (see layout.ts).
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client'
import { Session } from 'chdb'
import { createChdbConnection } from 'chdb/connection'
import { embeddedControl, embeddedLane } from './embeddedLanes'
import { closeInsertBodies, insertFromFile, openInsertBodies } from './embeddedInsert'
import type { EncodedFormat, InsertSettings } from './encodedRows'
import { asClickHouseFailure, isClickHouseRefusal, refusalWithAdvice } from './errors'
import { TableLayout } from './layout'
import { ReaderPool, type ClickHouseReader } from './readerPool'
import { sendInsert, serverControl, serverLane } from './serverLanes'

/**
 * The service's ClickHouse: a writer for inserts and DDL and readers for queries, on separate
 * connections so that an insert never waits behind a long query (and vice versa).
 */
export interface ClickHouse {
  /** Reads, on a pool of connections shared fairly by tenants (see asTenant), each bounded in time. */
  reader: ClickHouseReader
  writer: ClickHouseClient
  /** Inserts rows already encoded in `format`, without re-serialising them on the event loop. */
  insertEncoded(table: string, format: EncodedFormat, body: Buffer, settings?: InsertSettings): Promise<void>
  /** Which table holds which rows, and how DDL reaches them: one server's, or a cluster's. */
  layout: TableLayout
  description: string
  close(): Promise<void>
}

export interface ClickHouseOptions {
  /** A server URL; without one the embedded engine (chDB) stores data under dataDir. */
  url?: string | undefined
  username?: string | undefined
  password?: string | undefined
  database?: string
  dataDir: string
  /** How long a call to a server may take before it fails (and an insert is retried). */
  requestTimeoutMs?: number
  /** The name of the ClickHouse cluster (remote_servers) the tables are laid out on; unset for one server. */
  cluster?: string | undefined
  /** Reader connections (statements that run at once); half of them at most for one organization. */
  readers?: number
  /** Told of what goes wrong with reads out of any caller's sight. */
  log?: (msg: string, err?: unknown) => void
}

const DEFAULT_REQUEST_TIMEOUT_MS = 60_000

/**
 * Reader connections by default. On a server, eight statements at once. On the embedded engine,
 * two: it shares the process's cores, and every statement under way holds one of libuv's four
 * threads, which the writer, the control connection and the spool's file writes need too.
 */
const DEFAULT_SERVER_READERS = 8
const DEFAULT_EMBEDDED_READERS = 2

const perOrganization = (readers: number) => Math.max(1, Math.floor(readers / 2))

export async function connectClickHouse(options: ClickHouseOptions): Promise<ClickHouse> {
  if (options.url) return connectServer(options.url, options)
  return connectEmbedded(path.resolve(options.dataDir, 'clickhouse'), options)
}

async function connectServer(url: string, options: ClickHouseOptions): Promise<ClickHouse> {
  const database = options.database ?? 'default'
  const target = `${new URL(url).host}/${database}`
  const layout = options.cluster ? TableLayout.cluster({ name: options.cluster, database, replicated: true }) : TableLayout.single
  const readers = options.readers ?? DEFAULT_SERVER_READERS
  const make = (db: string, more: { request_timeout?: number; max_open_connections?: number } = {}) =>
    createClient({
      url,
      username: options.username ?? 'default',
      password: options.password ?? '',
      database: db,
      request_timeout: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      compression: { request: false, response: true },
      clickhouse_settings: layout.readSettings(),
      // Failures reach the callers, which log them with what they were doing.
      log: { level: ClickHouseLogLevel.OFF },
      ...more,
    })
  try {
    await ensureDatabase(make, database, options.cluster)
  } catch (err) {
    throw isClickHouseRefusal(err) ? refusalWithAdvice(err, { target, cluster: options.cluster }) : asClickHouseFailure(err, target)
  }
  const writer = make(database)
  // A read's limit is the pool's to keep (each statement its own): the client's timeout is only a backstop.
  const readerClient = make(database, { request_timeout: READ_BACKSTOP_MS, max_open_connections: readers })
  const reader = new ReaderPool({
    lanes: Array.from({ length: readers }, () => serverLane(readerClient, target)),
    control: serverControl(make(database, { request_timeout: 5_000, max_open_connections: 2 }), target),
    perOrganization: perOrganization(readers),
    defaultTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    ...(options.log ? { log: options.log } : {}),
  })
  return {
    reader,
    writer,
    async insertEncoded(table, format, body, settings) {
      await sendInsert(writer, {
        query: `INSERT INTO ${table} FORMAT ${format}`,
        body,
        // The answer is held until the insert has finished, so a failure can never follow a 200.
        settings: { ...settings, ...layout.insertSettings(table), wait_end_of_query: 1 },
        target,
      })
    },
    layout,
    description: `clickhouse ${target}${options.cluster ? ` (cluster ${options.cluster})` : ''}`,
    async close() {
      await Promise.all([writer.close(), reader.close(), readerClient.close()])
    },
  }
}

/** The longest a read can take whatever its own limit: a day. */
const READ_BACKSTOP_MS = 24 * 3600_000

/**
 * Creates the configured database when the server does not have it (as PostHog's migrations
 * do), asking first, so that a user without the right to create databases can use one made
 * for it.
 */
async function ensureDatabase(make: (db: string) => ClickHouseClient, database: string, cluster: string | undefined): Promise<void> {
  if (database === 'default') return
  const admin = make('default')
  try {
    const result = await admin.query({
      query: 'SELECT count() AS n FROM system.databases WHERE name = {database:String}',
      query_params: { database },
      format: 'JSONEachRow',
    })
    const [row] = await result.json<{ n: string | number }>()
    if (Number(row?.n ?? 0) === 0) {
      const onCluster = cluster ? ` ON CLUSTER ${quoteIdentifier(cluster)}` : ''
      await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(database)}${onCluster}` })
    }
  } finally {
    await admin.close()
  }
}

function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``
}

async function connectEmbedded(dir: string, options: ClickHouseOptions): Promise<ClickHouse> {
  const cluster = options.cluster
  await mkdir(dir, { recursive: true })
  const layout = cluster ? TableLayout.cluster({ name: cluster, database: 'default', replicated: false }) : TableLayout.single
  // The engine takes its server configuration from the first connection to a directory: this one
  // lets BACKUP and RESTORE use any path (the backup command names it; only DATA_DIR's owner reaches the admin socket).
  const connectionArgs = ['--backups.allowed_path=/']
  if (cluster) connectionArgs.push(`--config-file=${await writeOneShardCluster(dir, cluster)}`)
  const engine = new Session(dir, { connectionArgs })
  const writerConnection = createChdbConnection({ path: dir })
  const inserts = await openInsertBodies(dir)
  // Over Distributed tables, this engine's lazy reading of columns after ORDER BY ... LIMIT loses
  // a column that a subquery renames to its own name (NOT_FOUND_COLUMN_IN_BLOCK; HogQL's events
  // view does so with timestamp). Reading them eagerly answers the same.
  const readSettings = { ...layout.readSettings(), ...(cluster ? { query_plan_optimize_lazy_materialization: 0 } : {}) }
  const writer = createClient({ connection: writerConnection, clickhouse_settings: readSettings } as never)
  const readers = options.readers ?? DEFAULT_EMBEDDED_READERS
  const reader = new ReaderPool({
    lanes: Array.from({ length: readers }, () => embeddedLane(dir, readSettings)),
    control: embeddedControl(dir),
    perOrganization: perOrganization(readers),
    defaultTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    ...(options.log ? { log: options.log } : {}),
  })
  return {
    reader,
    writer,
    async insertEncoded(table, format, body, settings) {
      await insertFromFile(writerConnection.chdb, inserts, {
        table,
        format,
        body,
        settings: { ...settings, ...layout.insertSettings(table) },
      })
    },
    layout,
    description: `embedded clickhouse (chDB) ${dir}${cluster ? ` (rehearsing cluster ${cluster})` : ''}`,
    async close() {
      await Promise.all([writer.close(), reader.close()])
      closeInsertBodies(inserts)
      engine.close()
    },
  }
}

/**
 * The embedded engine's configuration as the one shard of a cluster of itself: its own address,
 * with the port it would serve on, so that the engine knows the shard is local and reads and
 * writes it in process (it serves no port).
 */
async function writeOneShardCluster(dir: string, cluster: string): Promise<string> {
  const file = path.join(dir, 'one-shard-cluster.xml')
  await writeFile(
    file,
    `<clickhouse>
  <tcp_port>9000</tcp_port>
  <remote_servers>
    <${cluster}><shard><replica><host>127.0.0.1</host><port>9000</port></replica></shard></${cluster}>
  </remote_servers>
</clickhouse>
`,
  )
  return file
}
