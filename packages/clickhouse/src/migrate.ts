import { readdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { ClickHouseClient } from '@clickhouse/client'

// Found through the package rather than this file's place, so that the built server (one bundle
// elsewhere) reads the same files as the sources do.
const SCHEMA_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve('@burrow/clickhouse/package.json')), 'schema')

/**
 * Applies schema/NNN_name.sql in order, each once, recording them in schema_migrations.
 * Statements are written idempotently (IF NOT EXISTS) because several servers may start at once.
 */
export async function migrateClickHouse(client: ClickHouseClient): Promise<string[]> {
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS schema_migrations
      (name String, applied_at DateTime DEFAULT now())
      ENGINE = ReplacingMergeTree ORDER BY name`,
  })
  const result = await client.query({ query: 'SELECT name FROM schema_migrations', format: 'JSONEachRow' })
  const done = new Set((await result.json<{ name: string }>()).map((r) => r.name))
  const files = (await readdir(SCHEMA_DIR)).filter((f) => /^\d+_.+\.sql$/.test(f)).sort()
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
