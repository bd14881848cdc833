import postgres from 'postgres'
import { startEmbeddedPostgres } from './embedded'

/** A connection pool or an open transaction: every query function accepts either. */
export type Sql = postgres.Sql | postgres.TransactionSql
/** The connection pool, which can also open transactions. */
export type Pool = postgres.Sql

export interface PostgresHandle {
  sql: Pool
  /** Where the connection points, without the password, for logs. */
  description: string
  /** Ends the pool: queries still running get `timeoutMs` (default 5 s) before their connections are closed. */
  close(timeoutMs?: number): Promise<void>
}

export interface PostgresOptions {
  /** A server URL; without one an embedded server under dataDir is started or reused. */
  databaseUrl?: string | undefined
  dataDir: string
  maxConnections?: number
  log?: (msg: string) => void
}

export async function connectPostgres(options: PostgresOptions): Promise<PostgresHandle> {
  const log = options.log ?? (() => {})
  const embedded = options.databaseUrl ? undefined : await startEmbeddedPostgres(options.dataDir, log)
  const url = options.databaseUrl ?? embedded!.url
  const sql = postgres(url, {
    max: options.maxConnections ?? 10,
    onnotice: () => {},
    connection: { application_name: 'burrow' },
  })
  const parsed = new URL(url)
  return {
    sql,
    description: `${embedded ? 'embedded ' : ''}postgres://${parsed.host}${parsed.pathname}`,
    async close(timeoutMs = 5_000) {
      await sql.end({ timeout: timeoutMs / 1000 })
      await embedded?.stop()
    },
  }
}
