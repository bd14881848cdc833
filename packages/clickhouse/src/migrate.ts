import { readdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { ClickHouse } from './connect'
import { rebuildEventsWithSmallGranules } from './eventGranules'
import type { TableLayout } from './layout'

// Found through the package rather than this file's place, so that the built server (one bundle
// elsewhere) reads the same files as the sources do.
const SCHEMA_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('@burrow/clickhouse/package.json')), 'schema')

interface ClickHouseMigrationOptions {
  /**
   * Runs the migration while no other server migrates the same ClickHouse (the server passes
   * a PostgreSQL advisory lock). Statements are written idempotently (IF NOT EXISTS) as well.
   */
  exclusively?: <T>(migrate: () => Promise<T>) => Promise<T>
  /** Applies the migrations up to this one only: a database as an earlier version left it (for tests of an upgrade). */
  until?: string
}

/**
 * Applies schema/NNN_name.sql in order, each once, recording them in schema_migrations; each
 * statement as the connection's layout runs it (one server's tables or a cluster's). A database
 * that records migrations this code does not have was migrated by a newer version, and one laid
 * out for the other kind of ClickHouse would be read wrongly: both are refused untouched.
 */
export async function migrateClickHouse(ch: ClickHouse, options: ClickHouseMigrationOptions = {}): Promise<string[]> {
  const exclusively = options.exclusively ?? ((migrate) => migrate())
  return exclusively(() => applyMigrations(ch, options.until))
}

async function applyMigrations(ch: ClickHouse, until: string | undefined): Promise<string[]> {
  const client = ch.writer
  await refuseOtherLayout(ch)
  for (const statement of ch.layout.statements(MIGRATIONS_TABLE)) await client.command({ query: statement })
  const result = await client.query({ query: 'SELECT DISTINCT name FROM schema_migrations', format: 'JSONEachRow' })
  const done = new Set((await result.json<{ name: string }>()).map((r) => r.name))
  const known = [...(await schemaFiles()), ...Object.keys(CODE_MIGRATIONS)].sort()
  const unknown = [...done].filter((name) => !known.includes(name)).sort()
  if (unknown.length > 0) {
    throw new Error(
      `the ClickHouse database has migrations this version of Burrow does not know (${unknown.join(', ')}): ` +
        `a newer version upgraded it. Run that version or a later one, or restore a backup taken before the upgrade.`,
    )
  }
  const applied: string[] = []
  for (const name of known) {
    if (until !== undefined && name > until) break
    if (done.has(name)) continue
    const code = CODE_MIGRATIONS[name]
    if (code) await code(ch)
    else {
      for (const statement of splitStatements(await readFile(path.join(SCHEMA_DIR, name), 'utf8'))) {
        for (const laidOut of ch.layout.statements(statement)) await client.command({ query: laidOut })
      }
    }
    await client.insert({ table: 'schema_migrations', values: [{ name }], format: 'JSONEachRow' })
    applied.push(name)
  }
  return applied
}

/**
 * Migrations that statements alone cannot write, because what they do depends on what the
 * database holds: each runs in its place in the order and is recorded as the files are. Written
 * to be run again from any point a crash may leave them at.
 */
const CODE_MIGRATIONS: Readonly<Record<string, (ch: ClickHouse) => Promise<void>>> = {
  '011_events_small_granules': rebuildEventsWithSmallGranules,
}

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations
(name String, applied_at DateTime DEFAULT now())
ENGINE = ReplacingMergeTree ORDER BY name`

/** Refuses a database whose events table was laid out for one server while the service is configured for a cluster, or the reverse. */
async function refuseOtherLayout(ch: ClickHouse): Promise<void> {
  const result = await ch.reader.query({
    query: `SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'events'`,
    format: 'JSONEachRow',
  })
  const [events] = await result.json<{ engine: string }>()
  if (!events || (events.engine === 'Distributed') === ch.layout.clustered) return
  throw new Error(
    ch.layout.clustered
      ? 'the ClickHouse database holds the tables of one server, not of a cluster: CLICKHOUSE_CLUSTER is set for a database created without it. Unset it, or use a new database.'
      : 'the ClickHouse database holds the tables of a cluster: set CLICKHOUSE_CLUSTER to the cluster it was created for.',
  )
}

/**
 * The statements of every schema file, laid out for one server or a cluster: what migrating a new
 * database runs, besides the code migrations (which read the database first).
 */
export async function schemaStatements(layout: TableLayout): Promise<string[]> {
  const statements = layout.statements(MIGRATIONS_TABLE)
  for (const file of await schemaFiles()) {
    for (const statement of splitStatements(await readFile(path.join(SCHEMA_DIR, file), 'utf8')))
      statements.push(...layout.statements(statement))
  }
  return statements
}

async function schemaFiles(): Promise<string[]> {
  return (await readdir(SCHEMA_DIR)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort()
}

function splitStatements(text: string): string[] {
  return text
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0)
}
