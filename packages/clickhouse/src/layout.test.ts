import { describe, expect, it } from 'vitest'
import { TableLayout } from './layout'
import { schemaStatements } from './migrate'

const cluster = TableLayout.cluster({ name: 'burrow', database: 'analytics', replicated: true })
const rehearsal = TableLayout.cluster({ name: 'rehearsal', database: 'default', replicated: false })

describe('the cluster schema', () => {
  it('is the expected DDL, statement for statement (a change to it is a change to what clusters run)', async () => {
    const statements = await schemaStatements(cluster)
    const header =
      '-- What a new database gets on a cluster (CLICKHOUSE_CLUSTER=burrow, CLICKHOUSE_DATABASE=analytics):\n' +
      '-- the migrations of packages/clickhouse/schema as packages/clickhouse/src/layout.ts lays them out.\n' +
      '-- Generated and checked by layout.test.ts (vitest -u rewrites it after a schema change).\n\n'
    await expect(`${header}${statements.join(';\n\n')};\n`).toMatchFileSnapshot('../../../docs/cluster-schema.sql')
  })

  it('runs every DDL statement on every server, and only the backfill from one', async () => {
    for (const statement of await schemaStatements(cluster)) {
      if (statement.startsWith('INSERT INTO')) expect(statement).not.toContain('ON CLUSTER')
      else expect(statement).toMatch(/^(CREATE|ALTER) (TABLE|MATERIALIZED VIEW) (IF NOT EXISTS )?\w+ ON CLUSTER burrow\b/)
    }
  })

  it('keeps every table in replicated storage, events split over the shards by distinct id and every other table whole on each server', async () => {
    const creates = (await schemaStatements(cluster)).filter((s) => s.startsWith('CREATE TABLE'))
    const engineOf = (table: string) =>
      creates.find((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${table} `))?.match(/ENGINE = ([^\n]+)/)?.[1]
    expect(engineOf('events_local')).toMatch(
      /^ReplicatedReplacingMergeTree\('\/clickhouse\/tables\/\{shard\}\/analytics\.events_local', '\{replica\}', inserted_at\)/,
    )
    expect(engineOf('events')).toBe('Distributed(burrow, analytics, events_local, sipHash64(distinct_id))')
    expect(engineOf('event_daily_counts')).toMatch(/^Distributed\(burrow, analytics, event_daily_counts_local, /)
    for (const table of [
      'person',
      'person_distinct_id2',
      'cohortpeople',
      'groups',
      'plugin_log_entries',
      'ingestion_warnings',
      'events_dead_letter_queue',
    ]) {
      expect(engineOf(table)).toMatch(
        new RegExp(`^Replicated\\w*MergeTree\\('/clickhouse/tables/noshard/analytics\\.${table}', '\\{shard\\}-\\{replica\\}'`),
      )
    }
    for (const create of creates) {
      const engine = /ENGINE = (\w+)/.exec(create)?.[1]
      expect(engine === 'Distributed' || engine?.startsWith('Replicated'), create).toBe(true)
    }
  })

  it('deduplicates inserts across replicas with the window the migrations ask of one server', async () => {
    const text = (await schemaStatements(cluster)).join('\n')
    expect(text).not.toContain('non_replicated_deduplication_window')
    expect(text).toContain('ALTER TABLE events_local ON CLUSTER burrow MODIFY SETTING replicated_deduplication_window = 100000')
  })

  it('keeps the daily counts view on each shard, reading the rows inserted there', async () => {
    const view = (await schemaStatements(cluster)).find((s) => s.startsWith('CREATE MATERIALIZED VIEW'))
    expect(view).toMatch(/^CREATE MATERIALIZED VIEW IF NOT EXISTS event_daily_counts_mv ON CLUSTER burrow TO event_daily_counts_local AS /)
    expect(view).toMatch(/\bFROM events_local\b/)
  })

  it('refuses a statement of a form it was not taught, instead of sending it half-translated', () => {
    expect(() => cluster.statements('RENAME TABLE events TO old_events')).toThrow(/teach packages\/clickhouse\/src\/layout\.ts/)
    expect(() => cluster.statements('CREATE MATERIALIZED VIEW IF NOT EXISTS v TO events AS SELECT * FROM person')).toThrow(/not split/)
  })

  it('refuses a cluster or database name that could not be written into DDL as it is', () => {
    expect(() => TableLayout.cluster({ name: 'a b', database: 'x', replicated: true })).toThrow(/CLICKHOUSE_CLUSTER/)
    expect(() => TableLayout.cluster({ name: 'c', database: 'x;DROP', replicated: true })).toThrow(/database/)
  })
})

describe('the embedded rehearsal of the cluster layout', () => {
  it('splits the same tables under Distributed ones, with no replication and no ON CLUSTER (which need Keeper)', async () => {
    const statements = await schemaStatements(rehearsal)
    const text = statements.join('\n')
    expect(text).not.toMatch(/ON CLUSTER|Replicated/)
    expect(text).toContain('ENGINE = Distributed(rehearsal, default, events_local, sipHash64(distinct_id))')
    expect(text).toContain('non_replicated_deduplication_window = 100000')
  })
})

describe('one server', () => {
  it('runs the migrations as written and names every table as they do', async () => {
    const layout = TableLayout.single
    expect(layout.statements('ALTER TABLE events DELETE WHERE 1')).toEqual(['ALTER TABLE events DELETE WHERE 1'])
    expect(layout.alterTarget('events')).toBe('events')
    expect(layout.columnTargets('events')).toEqual(['events'])
    expect(layout.insertSettings('events')).toEqual({})
  })
})

describe('statements the service runs', () => {
  it('names where rows live and where columns are added on a cluster', () => {
    expect(cluster.alterTarget('events')).toBe('events_local ON CLUSTER burrow')
    expect(cluster.alterTarget('person')).toBe('person ON CLUSTER burrow')
    expect(cluster.columnTargets('events')).toEqual(['events_local ON CLUSTER burrow', 'events ON CLUSTER burrow'])
    expect(cluster.insertSettings('events')).toEqual({ distributed_foreground_insert: 1 })
    expect(cluster.insertSettings('person')).toEqual({})
    expect(rehearsal.alterTarget('events')).toBe('events_local')
  })
})
