import { spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { connectClickHouse, migrateClickHouse } from '@burrow/clickhouse'
import { connectPostgres, whileClickHouseMigrationLocked } from '@burrow/postgres'
import { clickHouseEnvFor, clickHouseOptionsFor, isolatedDatabaseUrl } from '@burrow/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exitCode, SERVER_DIR } from './serviceProcess'

const root = mkdtempSync(path.join(tmpdir(), 'burrow-schema-'))
chmodSync(root, 0o755)
let database: { url: string; drop: () => Promise<void> } | undefined
let dirs = 0
function newDataDir(): string {
  const dir = path.join(root, `data-${++dirs}`)
  return dir
}

beforeAll(async () => {
  database = await isolatedDatabaseUrl()
  if (!database) throw new Error('these tests need DATABASE_URL (a PostgreSQL server to make a database in)')
})
afterAll(async () => {
  await database?.drop()
  rmSync(root, { recursive: true, force: true })
})

/** Runs the service until it fails or is ready (then stops it); its exit code and everything it wrote. */
function startUntilExit(dataDir: string, databaseUrl: string): Promise<{ code: number | null; output: string }> {
  const { CLICKHOUSE_URL: _ch, REDIS_URL: _redis, ...env } = process.env
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: SERVER_DIR,
    env: { ...env, ...clickHouseEnvFor(dataDir), DATA_DIR: dataDir, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1' },
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stdout.on('data', () => {
    if (output.includes('"msg":"ready"')) child.kill('SIGTERM')
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000)
  return exitCode(child).then((code) => {
    clearTimeout(timer)
    return { code, output }
  })
}

describe('the schema version at start', () => {
  it('refuses a PostgreSQL database migrated by a newer version, naming the migrations it does not know, and changes nothing', async () => {
    const pg = await connectPostgres({ databaseUrl: database!.url, dataDir: root, maxConnections: 1 })
    const sql = pg.sql
    try {
      await sql`create table schema_migrations (name text primary key, applied_at timestamptz not null default now())`
      await sql`insert into schema_migrations (name) values ('001_initial.sql'), ('999_from_a_newer_version.sql')`
      const { code, output } = await startUntilExit(newDataDir(), database!.url)
      expect(code).toBe(1)
      expect(output).toContain(
        'could not start: the PostgreSQL database has migrations this version of Burrow does not know (999_from_a_newer_version.sql): a newer version upgraded it.',
      )
      expect(output).not.toContain('"msg":"ready"')
      // Nothing of this version was applied.
      expect((await sql`select name from schema_migrations order by name`).map((r) => r.name)).toEqual([
        '001_initial.sql',
        '999_from_a_newer_version.sql',
      ])
      expect(await sql`select 1 from information_schema.tables where table_name = 'users'`).toHaveLength(0)
    } finally {
      await sql`drop table if exists schema_migrations`
      await pg.close()
    }
  }, 120_000)

  it('refuses a ClickHouse database migrated by a newer version', async () => {
    const dataDir = newDataDir()
    const ch = await connectClickHouse(clickHouseOptionsFor(dataDir))
    try {
      await migrateClickHouse(ch)
      await ch.writer.insert({ table: 'schema_migrations', values: [{ name: '999_from_a_newer_version.sql' }], format: 'JSONEachRow' })
    } finally {
      await ch.close()
    }
    const { code, output } = await startUntilExit(dataDir, database!.url)
    expect(code).toBe(1)
    expect(output).toContain(
      'could not start: the ClickHouse database has migrations this version of Burrow does not know (999_from_a_newer_version.sql)',
    )
    expect(output).not.toContain('"msg":"ready"')
  }, 120_000)

  it('migrates a database older than the code, then starts', async () => {
    const empty = (await isolatedDatabaseUrl())!
    try {
      const { output } = await startUntilExit(newDataDir(), empty.url)
      expect(output).toContain('"msg":"ready"')
      expect(output).toMatch(/postgres: .*applied 001_initial\.sql/)
      expect(output).toMatch(/clickhouse: .*applied 001_events\.sql/)
    } finally {
      await empty.drop()
    }
  }, 120_000)
})

describe('ClickHouse migrations of servers starting at once', () => {
  it('are applied once: the second waits for the first and finds them done', async () => {
    const ch = await connectClickHouse(clickHouseOptionsFor(newDataDir()))
    const pg = await connectPostgres({ databaseUrl: database!.url, dataDir: root, maxConnections: 4 })
    try {
      const migrate = () => migrateClickHouse(ch, { exclusively: (run) => whileClickHouseMigrationLocked(pg.sql, run) })
      const [a, b] = await Promise.all([migrate(), migrate()])
      expect([a.length, b.length].sort()).toEqual([0, expect.any(Number)])
      expect([...a, ...b].sort()).toEqual([...new Set([...a, ...b])].sort())
      const rows = await (await ch.reader.query({ query: 'SELECT name FROM schema_migrations', format: 'JSONEachRow' })).json()
      expect(rows).toHaveLength(a.length + b.length)
    } finally {
      await pg.close()
      await ch.close()
    }
  }, 60_000)
})
