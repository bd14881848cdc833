import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { useSuiteClickHouse } from '../test/suiteClickHouse'
import { toClickHouseDateTimeUs } from './datetime'
import { ensureMaterializedProperties, GROUP_COLUMNS, materializedColumnName, materializedColumns } from './materializedProperties'
import { encodeEventRow, insertEncodedEvents, NIL_UUID } from './tables/events'

const suite = useSuiteClickHouse('burrow-property-columns-')

const rows = async <T>(query: string) => (await suite.ch.reader.query({ query, format: 'JSONEachRow' })).json<T>()

/** Events numbered from `first` (property `i`), one per value. */
async function insert(team: number, values: unknown[], first = 0): Promise<void> {
  const now = toClickHouseDateTimeUs(Date.now() * 1000)
  const encoded = values.map((value, k) => {
    const i = first + k
    return encodeEventRow({
      uuid: randomUUID(),
      event: 'e',
      // `undefined`: the event does not have the property at all.
      properties: value === undefined ? { i } : { i, plan: value, tier: value },
      timestamp: now,
      team_id: team,
      distinct_id: `d${i}`,
      elements_chain: '',
      created_at: now,
      person_id: NIL_UUID,
    })
  })
  await insertEncodedEvents(suite.ch, Buffer.from(encoded.join('')), { deduplicationToken: randomUUID() })
}

/** What a column holds for each value, in the order inserted. */
const VALUES: Array<[unknown, string | null]> = [
  ['pro', 'pro'],
  ['', ''],
  ['say "hi" \\ é', 'say "hi" \\ é'],
  [42, '42'],
  [1.5, '1.5'],
  [true, 'true'],
  [null, 'null'],
  [{ a: [1, 'b'] }, '{"a":[1,"b"]}'],
  [undefined, null],
]

describe('property columns', () => {
  it('hold a string unescaped, any other value as its JSON, and NULL where the event lacks the property', async () => {
    await insert(1, [VALUES[0]![0]])
    expect(await ensureMaterializedProperties(suite.ch, ['plan'])).toEqual(['plan'])
    await insert(
      1,
      VALUES.slice(1).map(([value]) => value),
      1,
    )
    const got = await rows<{ value: string | null }>(
      `SELECT ${materializedColumnName('plan')} AS value FROM events WHERE team_id = 1 ORDER BY JSONExtractInt(properties, 'i'), distinct_id`,
    )
    // The first row was stored before the column existed: ClickHouse fills it from the same expression.
    expect(got.map((r) => r.value)).toEqual(VALUES.map(([, expected]) => expected))
  })

  it('made with an older expression are brought to the current one and keep their name', async () => {
    // An expression columns were made with before: the same values, with the JSON parsed three times per column.
    const column = materializedColumnName('tier')
    for (const target of suite.ch.layout.columnTargets('events')) {
      await suite.ch.writer.command({
        query: `ALTER TABLE ${target} ADD COLUMN ${column} Nullable(String)
          MATERIALIZED if(JSONHas(properties, 'tier'), if(JSONType(properties, 'tier') = 'String',
            JSONExtractString(properties, 'tier'), JSONExtractRaw(properties, 'tier')), NULL)
          COMMENT 'property:tier'`,
      })
    }
    expect(await ensureMaterializedProperties(suite.ch, ['tier'])).toEqual([])
    expect(materializedColumns(suite.ch).get('tier')).toBe(column)
    const [definition] = await rows<{ expression: string }>(
      `SELECT default_expression AS expression FROM system.columns WHERE database = currentDatabase() AND table = 'events' AND name = '${column}'`,
    )
    expect(definition?.expression).not.toContain('JSONHas')
    await insert(
      2,
      VALUES.map(([value]) => value),
    )
    const got = await rows<{ value: string | null }>(
      `SELECT ${column} AS value FROM events WHERE team_id = 2 ORDER BY JSONExtractInt(properties, 'i'), distinct_id`,
    )
    expect(got.map((r) => r.value)).toEqual(VALUES.map(([, expected]) => expected))
  })

  it('keep their values when another key gets a column, the older ones for the rows inserted after it as well', async () => {
    // 'plan' and 'tier' have columns from the tests before; the events of team 3 have all three keys.
    expect(await ensureMaterializedProperties(suite.ch, ['plan', 'level'])).toEqual(['level'])
    const now = toClickHouseDateTimeUs(Date.now() * 1000)
    const encoded = VALUES.map(([value], i) =>
      encodeEventRow({
        uuid: randomUUID(),
        event: 'e',
        properties: value === undefined ? { i } : { i, plan: value, tier: value, level: value },
        timestamp: now,
        team_id: 3,
        distinct_id: `d${i}`,
        elements_chain: '',
        created_at: now,
        person_id: NIL_UUID,
      }),
    )
    await insertEncodedEvents(suite.ch, Buffer.from(encoded.join('')), { deduplicationToken: randomUUID() })
    const columns = ['plan', 'tier', 'level'].map(materializedColumnName)
    const got = await rows<Record<string, string | null>>(
      `SELECT ${columns.join(', ')} FROM events WHERE team_id = 3 ORDER BY JSONExtractInt(properties, 'i')`,
    )
    for (const column of columns) expect(got.map((r) => r[column])).toEqual(VALUES.map(([, expected]) => expected))
    // The rows of team 1, stored before, keep what their columns held.
    const before = await rows<{ value: string | null }>(
      `SELECT ${materializedColumnName('plan')} AS value FROM events WHERE team_id = 1 ORDER BY JSONExtractInt(properties, 'i'), distinct_id`,
    )
    expect(before.map((r) => r.value)).toEqual(VALUES.map(([, expected]) => expected))
  })

  it("share the one parse with the group columns, which hold a group's key as text and '' without one", async () => {
    await ensureMaterializedProperties(suite.ch, ['plan'])
    const definitions = await rows<{ name: string; expression: string }>(
      `SELECT name, default_expression AS expression FROM system.columns WHERE database = currentDatabase() AND table = 'events'
        AND (name IN ('${GROUP_COLUMNS.join("', '")}') OR name = '${materializedColumnName('plan')}') ORDER BY name`,
    )
    // Every expression reads the same tuple, which holds the group keys too: ClickHouse parses the JSON once for all.
    const tuple = (expression: string) => /JSONExtract\(properties, '([^']*)'\)/.exec(expression)?.[1]
    expect(definitions).toHaveLength(GROUP_COLUMNS.length + 1)
    expect(new Set(definitions.map((d) => tuple(d.expression))).size).toBe(1)
    expect(tuple(definitions[0]!.expression)).toContain('`$group_4` Nullable(String)')
    const now = toClickHouseDateTimeUs(Date.now() * 1000)
    const keys: Array<Record<string, unknown>> = [
      { $group_0: 'acme', $group_1: 42, $group_3: 'say "hi" \\ é' },
      { $group_2: { id: 7 } },
      {},
    ]
    const encoded = keys.map((groups, i) =>
      encodeEventRow({
        uuid: randomUUID(),
        event: 'e',
        properties: { i, ...groups },
        timestamp: now,
        team_id: 4,
        distinct_id: `d${i}`,
        elements_chain: '',
        created_at: now,
        person_id: NIL_UUID,
      }),
    )
    await insertEncodedEvents(suite.ch, Buffer.from(encoded.join('')), { deduplicationToken: randomUUID() })
    const got = await rows<Record<string, string>>(
      `SELECT ${GROUP_COLUMNS.map((name) => `\`${name}\``).join(', ')} FROM events WHERE team_id = 4 ORDER BY JSONExtractInt(properties, 'i')`,
    )
    expect(got).toEqual([
      { $group_0: 'acme', $group_1: '42', $group_2: '', $group_3: 'say "hi" \\ é', $group_4: '' },
      { $group_0: '', $group_1: '', $group_2: '{"id":7}', $group_3: '', $group_4: '' },
      { $group_0: '', $group_1: '', $group_2: '', $group_3: '', $group_4: '' },
    ])
  })
})
