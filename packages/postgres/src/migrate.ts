import { readdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import type postgres from 'postgres'

// Found through the package rather than this file's place, so that the built server (one bundle
// elsewhere) reads the same files as the sources do.
const MIGRATIONS_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('@burrow/postgres/package.json')), 'migrations')
/** Arbitrary constant: serialises migration runs of several processes starting at once. */
const MIGRATION_LOCK_KEY = 7_210_934_411

/** Applies migrations/NNN_name.sql in order, each once, recording them in schema_migrations. */
export async function migratePostgres(sql: postgres.Sql): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort()
  const applied: string[] = []
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`
    await tx`create table if not exists schema_migrations (
      name text primary key,
      applied_at timestamptz not null default now()
    )`
    const done = new Set((await tx<{ name: string }[]>`select name from schema_migrations`).map((r) => r.name))
    for (const file of files) {
      if (done.has(file)) continue
      await tx.unsafe(await readFile(path.join(MIGRATIONS_DIR, file), 'utf8'))
      await tx`insert into schema_migrations (name) values (${file})`
      applied.push(file)
    }
  })
  return applied
}
