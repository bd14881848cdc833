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
 * The events table's group columns, PostHog's `$group_0` … `$group_4`: the key of each group the
 * event belongs to, from the property of the same name ('' without one). Made by a migration;
 * their expression joins the property columns' shared extraction.
 */
export const GROUP_COLUMNS = ['$group_0', '$group_1', '$group_2', '$group_3', '$group_4']

/**
 * Adds a column for each key the events table lacks one for, and has ClickHouse fill it for the
 * rows already stored (a mutation in the background); then remembers every property column of
 * the table for this connection's reads. Answers the keys that got a column now.
 */
export async function ensureMaterializedProperties(ch: ClickHouse, keys: readonly string[]): Promise<string[]> {
  const existing = await readMaterializedColumns(ch)
  for (const key of keys) {
    if (!MATERIALIZABLE_KEY.test(key))
      throw new Error(`cannot materialise the property ${JSON.stringify(key)}: use letters, digits, _ $ . - and spaces`)
  }
  const added = [...new Set(keys.filter((key) => !existing.has(key)))]
  const extraction = new SharedExtraction([...existing.keys(), ...added, ...GROUP_COLUMNS])
  const rows = await ch.reader.query({ query: 'SELECT count() AS n FROM events', format: 'JSONEachRow' })
  const stored = Number((await rows.json<{ n: string }>())[0]?.n ?? 0) > 0
  const define = (key: string) => `Nullable(String) MATERIALIZED ${extraction.propertyTextSql(key)} COMMENT '${COMMENT_PREFIX}${key}'`
  // On a cluster, the shards' tables and the Distributed one in front of them: the column is
  // computed where the rows are, and read through the Distributed table.
  const alter = async (statement: (target: string) => string) => {
    for (const target of ch.layout.columnTargets('events')) await ch.writer.command({ query: statement(target) })
  }
  // Columns made for another set of keys (or before the extraction was shared) read the set of
  // now: the same values, and all the expressions share one parse of the JSON again. Rows
  // already stored keep theirs.
  for (const [key, { name, expression }] of existing) {
    if (!extraction.isReadBy(expression)) await alter((target) => `ALTER TABLE ${target} MODIFY COLUMN \`${name}\` ${define(key)}`)
  }
  for (const { name, expression } of await readGroupColumns(ch)) {
    if (!extraction.isReadBy(expression))
      await alter((target) => `ALTER TABLE ${target} MODIFY COLUMN \`${name}\` String MATERIALIZED ${extraction.groupKeySql(name)}`)
  }
  for (const key of added) {
    const column = `\`${materializedColumnName(key)}\``
    await alter((target) => `ALTER TABLE ${target} ADD COLUMN IF NOT EXISTS ${column} ${define(key)}`)
    if (stored) await ch.writer.command({ query: `ALTER TABLE ${ch.layout.alterTarget('events')} MATERIALIZE COLUMN ${column}` })
  }
  columnsOf.set(ch, new Map([...(await readMaterializedColumns(ch))].map(([key, column]) => [key, column.name])))
  return added
}

/**
 * How the property columns and the group columns read an event's JSON: with one parse for all of
 * them. Every column's expression holds the same two extractions, the values of all the columns'
 * keys (a tuple) and the keys the event has, which ClickHouse computes once per row for all the
 * columns of an insert (ten columns that each parsed the JSON made an event of 2 kB cost about
 * 10 µs more to insert; the five group columns' own parses, 6–7 µs more for an event of 2.3 kB).
 */
class SharedExtraction {
  private readonly tupleType: string

  constructor(keys: readonly string[]) {
    // One order whatever order the keys came in, so that the expressions are the same text.
    const sorted = [...new Set(keys)].sort()
    this.tupleType = `Tuple(${sorted.map((key) => `\`${key}\` Nullable(String)`).join(', ')})`
  }

  /**
   * A property of `properties` as its column holds it: NULL where it is missing, a string's
   * unescaped text, any other value's JSON (`null` for a JSON null, which the tuple reads as NULL).
   */
  propertyTextSql(key: string): string {
    const value = `tupleElement(JSONExtract(properties, '${this.tupleType}'), '${key}')`
    return `if(has(JSONExtractKeys(properties), '${key}'), ifNull(${value}, 'null'), NULL)`
  }

  /**
   * A group column's value: the key as text, '' where the event has none. (The columns' first
   * expression, PostHog's, trimmed the quotes off the raw JSON, leaving a key's escapes in it.)
   */
  groupKeySql(key: string): string {
    return `ifNull(tupleElement(JSONExtract(properties, '${this.tupleType}'), '${key}'), '')`
  }

  /** Whether a column's expression, as the server writes it, reads this set of keys. */
  isReadBy(expression: string): boolean {
    return expression.includes(`'${this.tupleType}'`)
  }
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

async function readGroupColumns(ch: ClickHouse): Promise<PropertyColumn[]> {
  const result = await ch.reader.query({
    query: `SELECT name, default_expression AS expression FROM system.columns
      WHERE database = currentDatabase() AND table = 'events' AND name IN {names:Array(String)}`,
    query_params: { names: GROUP_COLUMNS },
    format: 'JSONEachRow',
  })
  return result.json<PropertyColumn>()
}

/** The property columns this connection's reads may use (none until ensureMaterializedProperties ran). */
export function materializedColumns(ch: ClickHouse): ReadonlyMap<string, string> {
  return columnsOf.get(ch) ?? new Map()
}
