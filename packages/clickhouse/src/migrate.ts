import { readdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { ClickHouseClient } from '@clickhouse/client'

// Found through the package rather than this file's place, so that the built server (one bundle
// elsewhere) reads the same files as the sources do.
const SCHEMA_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('@burrow/clickhouse/package.json')), 'schema')

interface ClickHouseMigrationOptions {
  /**
   * Runs the migration while no other server migrates the same ClickHouse (the server passes
   * a PostgreSQL advisory lock). Statements are written idempotently (IF NOT EXISTS) as well.
   */
  exclusively?: <T>(migrate: () => Promise<T>) => Promise<T>
}

/**
 * Applies schema/NNN_name.sql in order, each once, recording them in schema_migrations.
 * A database that records migrations this code does not have was migrated by a newer
 * version: it is refused untouched.
 */
export async function migrateClickHouse(client: ClickHouseClient, options: ClickHouseMigrationOptions = {}): Promise<string[]> {
  const exclusively = options.exclusively ?? ((migrate) => migrate())
  return exclusively(() => applyMigrations(client))
}

async function applyMigrations(client: ClickHouseClient): Promise<string[]> {
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS schema_migrations
      (name String, applied_at DateTime DEFAULT now())
      ENGINE = ReplacingMergeTree ORDER BY name`,
  })
  const result = await client.query({ query: 'SELECT DISTINCT name FROM schema_migrations', format: 'JSONEachRow' })
  const done = new Set((await result.json<{ name: string }>()).map((r) => r.name))
  const files = (await readdir(SCHEMA_DIR)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort()
  const unknown = [...done].filter((name) => !files.includes(name)).sort()
  if (unknown.length > 0) {
    throw new Error(
      `the ClickHouse database has migrations this version of Burrow does not know (${unknown.join(', ')}): ` +
        `a newer version upgraded it. Run that version or a later one, or restore a backup taken before the upgrade.`,
    )
  }
  const applied: string[] = []
  for (const file of files) {
    if (done.has(file)) continue
    for (const statement of splitStatements(await readFile(path.join(SCHEMA_DIR, file), 'utf8'))) {
      await client.command({ query: statement })
    }
    await client.insert({ table: 'schema_migrations', values: [{ name: file }], format: 'JSONEachRow' })
    applied.push(file)
  }
  return applied
}

function splitStatements(text: string): string[] {
  return text
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0)
}
