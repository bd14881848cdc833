import postgres from 'postgres'
import { startEmbeddedPostgres } from './embedded'
import { watchLiveness, type Liveness } from './liveness'

/** A connection pool or an open transaction: every query function accepts either. */
export type Sql = postgres.Sql | postgres.TransactionSql
/** The connection pool, which can also open transactions. */
export type Pool = postgres.Sql
export type { Liveness } from './liveness'

export interface PostgresHandle {
  sql: Pool
  /** Where the connection points, without the password, for logs. */
  description: string
  /** What the last liveness check found, kept up to date in the background: probes read it without a query. */
  liveness(): Liveness
  /** Ends the pool: queries still running get `timeoutMs` (default 5 s) before their connections are closed. */
  close(timeoutMs?: number): Promise<void>
}

/**
 * How long each part of a PostgreSQL call may take. A server that is down refuses at once; one
 * that is frozen or cut off by the network accepts and never answers, and only these bound the wait.
 */
export interface PostgresDeadlines {
  /** Opening a connection (TCP, TLS, authentication). */
  connectMs: number
  /** A statement on a server that answers, as its statement_timeout (0: none). */
  statementMs: number
  /** How often a `select 1` on a connection of its own checks that the server answers. */
  livenessIntervalMs: number
  /**
   * A liveness check unanswered this long marks PostgreSQL down: the pool's connections are
   * closed, their calls fail with PostgresUnavailable, and new calls fail at once until a check
   * is answered again.
   */
  livenessTimeoutMs: number
}

export const DEFAULT_POSTGRES_DEADLINES: PostgresDeadlines = {
  connectMs: 5_000,
  statementMs: 30_000,
  livenessIntervalMs: 1_000,
  livenessTimeoutMs: 2_000,
}

export interface PostgresOptions {
  /** A server URL; without one an embedded server under dataDir is started or reused. */
  databaseUrl?: string | undefined
  dataDir: string
  maxConnections?: number
  deadlines?: Partial<PostgresDeadlines> | undefined
  log?: (msg: string) => void
  /** Told when PostgreSQL stops answering and when it answers again. */
  onLivenessChange?: (liveness: Liveness) => void
}

/** The driver's options; its types leave out `socket`, the factory of the connections' sockets, which it takes. */
type DriverOptions = postgres.Options<Record<string, never>>

/** Idle connections are closed after this: one a firewall dropped silently would otherwise take a query down with it. */
const IDLE_TIMEOUT_S = 60

/**
 * The driver waits longer and longer before reconnecting after failures (up to 20 s), and a
 * query made after PostgreSQL is back would wait that long. The liveness check already keeps
 * calls away from a server that is down, so the wait stays short.
 */
const reconnectDelayS = (retries: number) => Math.min(0.1 * 2 ** retries, 1)

export async function connectPostgres(options: PostgresOptions): Promise<PostgresHandle> {
  const log = options.log ?? (() => {})
  const deadlines = { ...DEFAULT_POSTGRES_DEADLINES, ...options.deadlines }
  const embedded = options.databaseUrl ? undefined : await startEmbeddedPostgres(options.dataDir, log)
  const url = options.databaseUrl ?? embedded!.url
  const common = {
    onnotice: () => {},
    connect_timeout: deadlines.connectMs / 1000,
    idle_timeout: IDLE_TIMEOUT_S,
    backoff: reconnectDelayS,
    connection: {
      application_name: 'burrow',
      ...(deadlines.statementMs > 0 ? { statement_timeout: String(deadlines.statementMs) } : {}),
    },
  }
  const liveness = watchLiveness({
    intervalMs: deadlines.livenessIntervalMs,
    timeoutMs: deadlines.livenessTimeoutMs,
    // A pool of one connection of its own, so that a pool busy with slow work does not look like a server down.
    openPing: (socket) => postgres(url, { ...common, max: 1, socket } as DriverOptions),
    onChange: options.onLivenessChange,
  })
  const sql = postgres(url, { ...common, max: options.maxConnections ?? 10, socket: liveness.socket } as DriverOptions)
  const parsed = new URL(url)
  return {
    sql,
    description: `${embedded ? 'embedded ' : ''}postgres://${parsed.host}${parsed.pathname}`,
    liveness: () => liveness.state(),
    async close(timeoutMs = 5_000) {
      await liveness.stop()
      await sql.end({ timeout: timeoutMs / 1000 })
      await embedded?.stop()
    },
  }
}
