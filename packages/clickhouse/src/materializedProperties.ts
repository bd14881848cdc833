import type { ClickHouse } from './connect'

/**
 * Event properties that users filter on most, each kept in a column of its own beside the JSON
 * text, as PostHog materialises hot properties: a filter on one reads a short column instead of
 * parsing every event's properties. The column is NULL where the event lacks the property, and
 * otherwise holds the value as property filters compare it (strings unquoted, anything else as
 * its JSON). ClickHouse computes it on insert; existing parts are filled in the background.
 */
export const DEFAULT_MATERIALIZED_PROPERTIES = [
  '$current_url',
  '$pathname',
  '$host',
  '$browser',
  '$os',
  '$device_type',
  '$session_id',
  '$lib',
  '$referring_domain',
  'utm_source',
]

/** What a property name may be to get a column: the key goes into DDL text, so it is kept to these characters. */
export const MATERIALIZABLE_KEY = /^[\w$.\- ]{1,100}$/

/** Which column holds which property, per connection (read from the table's column comments). */
const columnsOf = new WeakMap<ClickHouse, ReadonlyMap<string, string>>()

const COMMENT_PREFIX = 'property:'

/** The column a property gets: `mat_` and the key, characters outside identifiers replaced (the comment keeps the key exactly). */
export const materializedColumnName = (key: string) => `mat_${key.replace(/[^\w$]/g, '_')}`

/**
 * Adds a column for each key the events table lacks one for, and has ClickHouse fill it for the
 * rows already stored (a mutation in the background); then remembers every property column of
 * the table for this connection's reads. Answers the keys that got a column now.
 */
export async function ensureMaterializedProperties(ch: ClickHouse, keys: readonly string[]): Promise<string[]> {
  const existing = await readMaterializedColumns(ch)
  const added: string[] = []
  const rows = await ch.reader.query({ query: 'SELECT count() AS n FROM events', format: 'JSONEachRow' })
  const stored = Number((await rows.json<{ n: string }>())[0]?.n ?? 0) > 0
  for (const key of keys) {
    if (existing.has(key)) continue
    if (!MATERIALIZABLE_KEY.test(key))
      throw new Error(`cannot materialise the property ${JSON.stringify(key)}: use letters, digits, _ $ . - and spaces`)
    const column = `\`${materializedColumnName(key)}\``
    // On a cluster, the shards' tables and the Distributed one in front of them: the column is
    // computed where the rows are, and read through the Distributed table.
    for (const target of ch.layout.columnTargets('events')) {
      await ch.writer.command({
        query: `ALTER TABLE ${target} ADD COLUMN IF NOT EXISTS ${column} Nullable(String)
          MATERIALIZED ${propertyTextSql(key)}
          COMMENT '${COMMENT_PREFIX}${key}'`,
      })
    }
    if (stored) await ch.writer.command({ query: `ALTER TABLE ${ch.layout.alterTarget('events')} MATERIALIZE COLUMN ${column}` })
    added.push(key)
  }
  // Columns made before their expression parsed the JSON once: the same values, at a third of
  // the cost to every insert (rows already stored keep theirs).
  for (const [key, { name, expression }] of existing) {
    if (!expression.includes('JSONHas')) continue
    for (const target of ch.layout.columnTargets('events')) {
      await ch.writer.command({
        query: `ALTER TABLE ${target} MODIFY COLUMN \`${name}\` Nullable(String) MATERIALIZED ${propertyTextSql(key)} COMMENT '${COMMENT_PREFIX}${key}'`,
      })
    }
  }
  columnsOf.set(ch, new Map([...(await readMaterializedColumns(ch))].map(([key, column]) => [key, column.name])))
  return added
}

/**
 * A property of `properties` as its column holds it: NULL where it is missing, a string's
 * unescaped text, any other value's JSON. The JSON of the whole event is parsed once (ClickHouse
 * computes the repeated JSONExtractRaw once); only the property's own text is parsed again.
 */
function propertyTextSql(key: string): string {
  const raw = `JSONExtractRaw(properties, '${key}')`
  return `if(${raw} = '', NULL, if(startsWith(${raw}, '"'), JSONExtractString(${raw}), ${raw}))`
}

interface PropertyColumn {
  name: string
  /** The column's MATERIALIZED expression, as the server writes it. */
  expression: string
}

async function readMaterializedColumns(ch: ClickHouse): Promise<Map<string, PropertyColumn>> {
  const result = await ch.reader.query({
    query: `SELECT name, comment, default_expression AS expression FROM system.columns
      WHERE database = currentDatabase() AND table = 'events' AND startsWith(comment, {prefix:String})`,
    query_params: { prefix: COMMENT_PREFIX },
    format: 'JSONEachRow',
  })
  const rows = await result.json<{ name: string; comment: string; expression: string }>()
  return new Map(rows.map((r) => [r.comment.slice(COMMENT_PREFIX.length), { name: r.name, expression: r.expression }]))
}

/** The property columns this connection's reads may use (none until ensureMaterializedProperties ran). */
export function materializedColumns(ch: ClickHouse): ReadonlyMap<string, string> {
  return columnsOf.get(ch) ?? new Map()
}
