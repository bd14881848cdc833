import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client'
import { Session } from 'chdb'
import { createChdbConnection } from 'chdb/connection'

export type EncodedFormat = 'JSONEachRow' | 'JSONCompactEachRow'

/** ClickHouse settings of one insert. */
export type InsertSettings = Record<string, number | string>

/**
 * The service's ClickHouse: a writer for inserts and a reader for queries, on separate
 * connections so that an insert never waits behind a long query (and vice versa).
 */
export interface ClickHouse {
  reader: ClickHouseClient
  writer: ClickHouseClient
  /** Inserts rows already encoded in `format`, without re-serialising them on the event loop. */
  insertEncoded(table: string, format: EncodedFormat, body: Buffer, settings?: InsertSettings): Promise<void>
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
}

export async function connectClickHouse(options: ClickHouseOptions): Promise<ClickHouse> {
  if (options.url) return connectServer(options.url, options)
  return connectEmbedded(path.resolve(options.dataDir, 'clickhouse'))
}

function connectServer(url: string, options: ClickHouseOptions): ClickHouse {
  const make = () =>
    createClient({
      url,
      username: options.username ?? 'default',
      password: options.password ?? '',
      database: options.database ?? 'default',
      request_timeout: 60_000,
      compression: { request: false, response: true },
      // Failures reach the callers, which log them with what they were doing.
      log: { level: ClickHouseLogLevel.OFF },
    })
  const writer = make()
  const reader = make()
  return {
    reader,
    writer,
    async insertEncoded(table, format, body, settings) {
      await writer.insert({ table, format, values: Readable.from([body]), ...(settings ? { clickhouse_settings: settings } : {}) })
    },
    description: `clickhouse ${new URL(url).host}`,
    async close() {
      await Promise.all([writer.close(), reader.close()])
    },
  }
}

async function connectEmbedded(dir: string): Promise<ClickHouse> {
  await mkdir(dir, { recursive: true })
  // The engine takes its server configuration from the first connection to a directory: this one
  // lets BACKUP and RESTORE use any path (the backup command names it; only DATA_DIR's owner reaches the admin socket).
  const engine = new Session(dir, { connectionArgs: ['--backups.allowed_path=/'] })
  const writerConnection = createChdbConnection({ path: dir })
  const writer = createClient({ connection: writerConnection } as never)
  const reader = createClient({ connection: createChdbConnection({ path: dir }) } as never)
  return {
    reader,
    writer,
    async insertEncoded(table, format, body, settings) {
      // The engine parses the buffer itself, off the event loop.
      await writerConnection.chdb.rawInsert({ table, format, values: body, ...(settings ? { settings } : {}) })
    },
    description: `embedded clickhouse (chDB) ${dir}`,
    async close() {
      await Promise.all([writer.close(), reader.close()])
      engine.close()
    },
  }
}
