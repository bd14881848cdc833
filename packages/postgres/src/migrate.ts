import { readdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import type postgres from 'postgres'

// Found through the package rather than this file's place, so that the built server (one bundle
// elsewhere) reads the same files as the sources do.
const MIGRATIONS_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('@burrow/postgres/package.json')), 'migrations')
/** Arbitrary constant: serialises migration runs of several processes starting at once. */
const MIGRATION_LOCK_KEY = 7_210_934_411
/** Another one for ClickHouse's migrations, so that they do not wait for PostgreSQL's and the reverse. */
const CLICKHOUSE_MIGRATION_LOCK_KEY = 7_210_934_412

/**
 * Applies migrations/NNN_name.sql in order, each once, recording them in schema_migrations.
 * A database that records migrations this code does not have was migrated by a newer
 * version: it is refused untouched, since this code would read and write it wrongly.
 */
export async function migratePostgres(sql: postgres.Sql): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort()
  const applied: string[] = []
  await sql.begin(async (tx) => {
    // A migration (an index on a large table) and the wait for another server's may take longer than a statement may.
    await tx`set local statement_timeout = 0`
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`
    await tx`create table if not exists schema_migrations (
      name text primary key,
      applied_at timestamptz not null default now()
    )`
    const done = new Set((await tx<{ name: string }[]>`select name from schema_migrations`).map((r) => r.name))
    const unknown = [...done].filter((name) => !files.includes(name)).sort()
    if (unknown.length > 0) throw newerSchemaError('PostgreSQL', unknown)
    for (const file of files) {
      if (done.has(file)) continue
      await tx.unsafe(await readFile(path.join(MIGRATIONS_DIR, file), 'utf8'))
      await tx`insert into schema_migrations (name) values (${file})`
      applied.push(file)
    }
  })
  return applied
}

/**
 * Runs `migrate` (ClickHouse's migrations) while holding a PostgreSQL advisory lock, so that
 * servers starting at once against one ClickHouse apply each migration once. ClickHouse itself
 * has nothing to lock with: a lock row in a MergeTree table is no compare-and-set (two inserts
 * both succeed), and KeeperMap needs a Keeper. Servers that share a ClickHouse share their
 * PostgreSQL (it assigns the project ids the events carry), so its lock covers them all; the
 * lock belongs to a transaction and ends with its connection if the process dies.
 */
export async function whileClickHouseMigrationLocked<T>(sql: postgres.Sql, migrate: () => Promise<T>): Promise<T> {
  let result: T | undefined
  await sql.begin(async (tx) => {
    // Another server's ClickHouse migrations may hold the lock for longer than a statement may wait.
    await tx`set local statement_timeout = 0`
    await tx`select pg_advisory_xact_lock(${CLICKHOUSE_MIGRATION_LOCK_KEY})`
    result = await migrate()
  })
  return result as T
}

/** The refusal of a database migrated by a newer version, saying what to do. */
function newerSchemaError(store: string, unknown: string[]): Error {
  return new Error(
    `the ${store} database has migrations this version of Burrow does not know (${unknown.join(', ')}): ` +
      `a newer version upgraded it. Run that version or a later one, or restore a backup taken before the upgrade.`,
  )
}
