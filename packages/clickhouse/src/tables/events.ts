import type { ClickHouse } from '../connect'
import { clickHouseDateTimeToIso } from '../datetime'
import { materializedColumns } from '../materializedProperties'
import { distinctIdsOfPersonsSql, eventPropertiesSql, splitOnOwnColumns, SqlParams, type PropertyExpression } from '../propertyConditions'

export const EVENTS_TABLE = 'events'
export const NIL_UUID = '00000000-0000-0000-0000-000000000000'

/** One row of the events table, as the ingestion pipeline produces it. */
export interface EventRow {
  uuid: string
  event: string
  /** The properties object serialised as JSON text (JSON.stringify of an object). */
  properties: string
  /** DateTime64(6) text, see toClickHouseDateTime. */
  timestamp: string
  team_id: number
  distinct_id: string
  elements_chain: string
  created_at: string
  person_id: string
}

/** A row as encodeEventRow takes it: the properties as the object itself. */
export type EventRowToEncode = Omit<EventRow, 'properties'> & { properties: Record<string, unknown> }

/**
 * Encodes a row as one JSONEachRow line; done as each event arrives, not at flush time.
 *
 * The properties go in as the JSON object itself rather than as an escaped string: ClickHouse
 * reads an object into a String column as its text (input_format_json_read_objects_as_strings),
 * and escaping the text a second time was a fifth of capture's encoding work. The line is one
 * JSON.stringify of the whole row, which writes a single flat string: joining the fields'
 * texts made a string of many pieces, which was copied once more when written out. The field
 * order matters to readers of encoded rows: `timestamp` comes before the properties, whose
 * keys are not escaped (see rowTimestampMs), and `person_id` is last (see setPersonIds).
 */
export function encodeEventRow(row: EventRowToEncode): string {
  return `${encodeEventRowText(row)}\n`
}

/**
 * The line encodeEventRow writes, without its newline, for a caller that writes the lines into
 * one buffer itself: the newline joined on is a second string of the row's size, made flat
 * again when the line is measured and written.
 */
export function encodeEventRowText(row: EventRowToEncode): string {
  const line = {
    uuid: row.uuid,
    event: row.event,
    timestamp: row.timestamp,
    team_id: row.team_id,
    distinct_id: row.distinct_id,
    elements_chain: row.elements_chain,
    created_at: row.created_at,
    properties: row.properties,
    person_id: row.person_id,
  }
  return JSON.stringify(line)
}

/**
 * Inserts rows encoded by encodeEventRow, or by its earlier form that wrote the properties as a
 * string. A batch may span any number of months (a backfill, clocks far off):
 * the events table's monthly partitions are not limited per insert, or a batch over 100 months
 * would be refused again and again and hold every event behind it.
 */
export async function insertEncodedEvents(
  ch: ClickHouse,
  body: Buffer,
  options: { deduplicationToken?: string | undefined } = {},
): Promise<void> {
  await ch.insertEncoded(EVENTS_TABLE, 'JSONEachRow', body, {
    input_format_json_read_objects_as_strings: 1,
    max_partitions_per_insert_block: 0,
    // Within the table's deduplication window, a second insert under the same token stores nothing.
    ...(options.deduplicationToken === undefined
      ? {}
      : { insert_deduplication_token: options.deduplicationToken, deduplicate_blocks_in_dependent_materialized_views: 1 }),
  })
}

/** Which of these event uuids are stored (in any project), in lower case. */
export async function storedEventUuids(ch: ClickHouse, uuids: string[]): Promise<Set<string>> {
  const stored = new Set<string>()
  // In slices: on a server a large parameter travels in the request's body, one form field,
  // which ClickHouse takes up to http_max_field_value_size (128 KiB): 2,000 uuids are about 80 KB.
  for (let at = 0; at < uuids.length; at += UUIDS_PER_LOOKUP) {
    const result = await ch.reader.query({
      query: `SELECT DISTINCT toString(uuid) AS stored FROM ${EVENTS_TABLE} WHERE uuid IN {uuids:Array(UUID)}${settingsSql(READ_SETTINGS)}`,
      query_params: { uuids: uuids.slice(at, at + UUIDS_PER_LOOKUP) },
      format: 'JSONEachRow',
    })
    for (const row of await result.json<{ stored: string }>()) stored.add(row.stored)
  }
  return stored
}

const UUIDS_PER_LOOKUP = 2000

export interface EventsQuery {
  teamId: number
  event?: string | undefined
  distinctIds?: string[] | undefined
  /** Events of any distinct id that maps to this person (uuid). */
  personId?: string | undefined
  properties?: PropertyExpression | undefined
  after?: string | undefined
  before?: string | undefined
  limit: number
  offset: number
  /** Aborted when the caller has gone: the query under way is given up. */
  signal?: AbortSignal | undefined
}

export interface StoredEvent {
  uuid: string
  event: string
  properties: string
  timestamp: string
  distinct_id: string
  elements_chain: string
  person_id: string
}

const STORED_EVENT_COLUMNS = 'uuid, event, properties, timestamp, distinct_id, elements_chain, person_id'

const TEAM = '{team_id:Int64}'

/**
 * Every read of events is a plain read: a batch inserted again after a crash carries the token
 * of its first insert and is dropped at insert time (see insertEncodedEvents), so no read pays
 * for FINAL's merge of every part.
 */
const EVENTS = EVENTS_TABLE

/** Bound on one read of the API's: a read that would take longer is stopped, so that it cannot hold the engine for others. */
const READ_SETTINGS = { max_execution_time: 20 }
/**
 * The service's own bound on the same reads, a second past ClickHouse's: a read the engine does
 * not stop in time (or a server that does not answer) is answered and killed then.
 */
const READ_TIMEOUT_MS = (READ_SETTINGS.max_execution_time + 1) * 1000

/**
 * A statement's own SETTINGS clause: settings given to the client instead stay on the embedded
 * engine's shared session and would bound every later read on it.
 */
const settingsSql = (settings: Record<string, number>) =>
  ` SETTINGS ${Object.entries(settings)
    .map(([name, value]) => `${name} = ${value}`)
    .join(', ')}`

/**
 * The filter as fixed fragments (every value travels as a query parameter): `where` holds it all;
 * when it has conditions on the JSON text or on persons, `prewhere` is the part that reads only
 * small columns (the team, names, time, properties' own columns), so that the JSON of rows those
 * rule out is never read. ClickHouse would choose a PREWHERE itself, but by column size alone,
 * and it may pick the JSON condition's.
 */
function eventsWhere(ch: ClickHouse, q: EventsQuery): { where: string; prewhere?: string; params: Record<string, unknown> } {
  const params = new SqlParams()
  const clauses = [`team_id = ${TEAM}`]
  if (q.event !== undefined) clauses.push(`event = ${params.add('String', q.event)}`)
  if (q.distinctIds !== undefined) clauses.push(`distinct_id IN ${params.add('Array(String)', q.distinctIds)}`)
  if (q.personId !== undefined) {
    clauses.push(`distinct_id IN (${distinctIdsOfPersonsSql(TEAM, params.add('Array(UUID)', [q.personId]))})`)
  }
  if (q.after !== undefined) clauses.push(`timestamp > parseDateTime64BestEffort(${params.add('String', q.after)}, 6, 'UTC')`)
  if (q.before !== undefined) clauses.push(`timestamp < parseDateTime64BestEffort(${params.add('String', q.before)}, 6, 'UTC')`)
  const values = { team_id: q.teamId }
  if (!q.properties) return { where: clauses.join(' AND '), params: { ...params.values, ...values } }
  const columns = materializedColumns(ch)
  const { ownColumns, rest } = splitOnOwnColumns(q.properties, columns)
  const cheap = ownColumns ? [...clauses, eventPropertiesSql(ownColumns, TEAM, params, columns)] : clauses
  if (!rest) return { where: cheap.join(' AND '), params: { ...params.values, ...values } }
  const restSql = eventPropertiesSql(rest, TEAM, params, columns)
  return { prewhere: cheap.join(' AND '), where: restSql, params: { ...params.values, ...values } }
}

/** `PREWHERE ... WHERE ...`, or `WHERE ...` alone, with `extra` conditions on small columns. */
function filterSql(filter: { where: string; prewhere?: string | undefined }, extra?: string): string {
  if (filter.prewhere === undefined) return `WHERE ${extra ? `${filter.where} AND ${extra}` : filter.where}`
  return `PREWHERE ${extra ? `${filter.prewhere} AND ${extra}` : filter.prewhere} WHERE ${filter.where}`
}

const toStored = (r: StoredEvent): StoredEvent => ({ ...r, timestamp: clickHouseDateTimeToIso(r.timestamp) })

/** The first time window a page of events is looked for in, back from its upper bound. */
const FIRST_WINDOW_MS = 6 * 3600_000
/** How many matching events a page's count goes up to beyond the page: a count past it says only "at least". */
export const COUNT_MARGIN = 1_000

export interface EventsPage {
  rows: StoredEvent[]
  /** Whether events match beyond this page. */
  more: boolean
  /**
   * How many events match: exact when it is at most offset + limit + COUNT_MARGIN; a larger
   * number of matches is reported as that bound. Found in the time window the page was found in,
   * while the caller does what else the page needs (its persons).
   */
  count: Promise<number>
}

/**
 * A page of events, newest first. It is looked for in a time window back from the query's upper
 * bound (`before`, or now), widened until it holds the page or reaches `after` (or the first
 * event), so that the newest events of a large project are found by reading its newest parts
 * only: the cost of a page is that of the rows it needs, not of all the project's events.
 */
export async function queryEvents(ch: ClickHouse, q: EventsQuery): Promise<EventsPage> {
  const filter = eventsWhere(ch, q)
  const { params } = filter
  const need = q.offset + q.limit + 1
  const upper = q.before === undefined ? Date.now() : Date.parse(q.before)
  const lowest = q.after === undefined ? undefined : Date.parse(q.after)
  // A distinct id's or a person's events are few and spread over all time, and found through the
  // distinct id's skip index: one read of all time costs less than a series of widening windows.
  let windowMs = q.distinctIds !== undefined || q.personId !== undefined ? MAX_WINDOW_MS : FIRST_WINDOW_MS
  for (;;) {
    // Unbounded once the window reaches `after`, or when the upper bound is not a plain date (relative dates arrive resolved).
    const from = Number.isFinite(upper) ? upper - windowMs : undefined
    const last = from === undefined || (lowest !== undefined && from <= lowest) || windowMs >= MAX_WINDOW_MS
    const windowed = filterSql(filter, last ? undefined : `timestamp >= fromUnixTimestamp64Milli({window_from:Int64}, 'UTC')`)
    const windowParams = last ? params : { ...params, window_from: from }
    const result = await ch.reader.query({
      query: `SELECT ${STORED_EVENT_COLUMNS}
        FROM ${EVENTS} ${windowed}
        ORDER BY timestamp DESC, uuid DESC
        LIMIT {limit:UInt32} OFFSET {offset:UInt64}${settingsSql({ ...READ_SETTINGS, query_plan_max_limit_for_lazy_materialization: 200_000 })}`,
      query_params: { ...windowParams, limit: q.limit + 1, offset: q.offset },
      format: 'JSONEachRow',
      timeoutMs: READ_TIMEOUT_MS,
      // The properties are read for the rows of the page only, after the sort (ClickHouse's lazy materialisation).
      abort_signal: q.signal,
    })
    const rows = await result.json<StoredEvent>()
    if (rows.length <= q.limit && !last) {
      // Not enough in this window: widen it by how far short it fell (at least fourfold).
      const found = Math.max(0, rows.length + q.offset)
      windowMs *= Math.min(32, Math.max(4, Math.ceil((need / Math.max(found, 1)) * 1.5)))
      continue
    }
    const more = rows.length > q.limit
    const page = rows.slice(0, q.limit).map(toStored)
    const least = q.offset + page.length + (more ? 1 : 0)
    const count = more ? boundedCount(ch, windowed, windowParams, q).then((n) => Math.max(n, least)) : Promise.resolve(least)
    return { rows: page, more, count }
  }
}

/** Beyond about a century the window is the whole table. */
const MAX_WINDOW_MS = 100 * 366 * 24 * 3600_000

/** How many events match in the page's window (`filter`: its PREWHERE and WHERE), counted up to offset + limit + COUNT_MARGIN. */
async function boundedCount(ch: ClickHouse, filter: string, params: Record<string, unknown>, q: EventsQuery): Promise<number> {
  const result = await ch.reader.query({
    query: `SELECT count() AS count FROM (SELECT 1 FROM ${EVENTS} ${filter} LIMIT {cap:UInt64})${settingsSql(READ_SETTINGS)}`,
    query_params: { ...params, cap: q.offset + q.limit + COUNT_MARGIN },
    format: 'JSONEachRow',
    timeoutMs: READ_TIMEOUT_MS,
    abort_signal: q.signal,
  })
  const [row] = await result.json<{ count: string | number }>()
  return Number(row?.count ?? 0)
}

export async function findEvent(ch: ClickHouse, teamId: number, uuid: string): Promise<StoredEvent | undefined> {
  const result = await ch.reader.query({
    query: `SELECT ${STORED_EVENT_COLUMNS} FROM ${EVENTS} WHERE team_id = ${TEAM} AND uuid = {uuid:UUID} LIMIT 1${settingsSql(READ_SETTINGS)}`,
    query_params: { team_id: teamId, uuid },
    format: 'JSONEachRow',
    timeoutMs: READ_TIMEOUT_MS,
  })
  const [row] = await result.json<StoredEvent>()
  return row && toStored(row)
}

/** Event names PostHog treats as its own rather than the project's custom events. */
const BUILT_IN_EVENTS = ['$autocapture', '$pageview', '$identify', '$pageleave', '$screen']

/** How far back property values are looked up, as PostHog does, so the lookup stays cheap. */
const VALUES_WINDOW_DAYS = 7
const VALUES_LIMIT = 100
/**
 * Of those days, the latest events a property's JSON is read from: parsing every event of a busy
 * week would take seconds, and the most frequent values show in any large recent sample.
 */
export const VALUES_SAMPLE_EVENTS = 20_000

export interface PropertyValuesQuery {
  teamId: number
  key: string
  /** Only values containing this, case-insensitively. */
  search?: string | undefined
  events?: string[] | undefined
}

/**
 * The most frequent values of a property over recent events, with how often each occurs;
 * array values count each element. `key=custom_event` lists custom event names instead.
 */
export async function propertyValues(ch: ClickHouse, q: PropertyValuesQuery): Promise<Array<{ name: string; count: number }>> {
  const params = new SqlParams()
  const clauses = [`team_id = ${TEAM}`, `timestamp >= now64(6, 'UTC') - INTERVAL ${VALUES_WINDOW_DAYS} DAY`]
  if (q.events && q.events.length > 0) clauses.push(`event IN ${params.add('Array(String)', q.events)}`)
  let select: string
  /** The JSON condition, applied to the sample of latest events rather than to every event of the window. */
  let keyClause: string | undefined
  let sampleColumn = ''
  if (q.key === 'custom_event') {
    clauses.push(`event NOT IN ${params.add('Array(String)', BUILT_IN_EVENTS)}`)
    select = 'SELECT event AS value'
  } else if (materializedColumns(ch).has(q.key)) {
    // The property's own column holds strings unquoted and anything else as its JSON (an array as its text).
    const column = `\`${materializedColumns(ch).get(q.key)}\``
    clauses.push(`${column} IS NOT NULL`)
    const text = `assumeNotNull(${column})`
    select = `SELECT arrayJoin(if(startsWith(${text}, '[') AND isValidJSON(${text}) AND JSONType(${text}) = 'Array',
        arrayMap(x -> if(JSONType(x) = 'String', JSONExtractString(x), x), JSONExtractArrayRaw(${text})),
        [${text}])) AS value, value AS raw`
  } else {
    // The event's JSON is parsed once, for the property's raw text ('' where it is missing); arrays and strings are read from that.
    const key = params.add('String', q.key)
    keyClause = `found != ''`
    select = `SELECT arrayJoin(if(startsWith(found, '['), JSONExtractArrayRaw(found), [found])) AS raw,
      if(startsWith(raw, '"'), JSONExtractString(raw), raw) AS value`
    sampleColumn = `JSONExtractRaw(properties, ${key}) AS found`
  }
  const outer = [`value != ''`, q.key === 'custom_event' ? '1' : `raw != 'null'`]
  if (q.search) outer.push(`positionCaseInsensitiveUTF8(value, ${params.add('String', q.search)}) > 0`)
  // Read from the property's own column, every event of the window is cheap; from the JSON, the latest of them.
  const rows = keyClause
    ? `(SELECT ${sampleColumn} FROM (SELECT properties FROM ${EVENTS} WHERE ${clauses.join(' AND ')}
        ORDER BY timestamp DESC LIMIT ${VALUES_SAMPLE_EVENTS})) WHERE ${keyClause}`
    : `${EVENTS} WHERE ${clauses.join(' AND ')}`
  const result = await ch.reader.query({
    query: `SELECT value AS name, count() AS count FROM (${select} FROM ${rows})
      WHERE ${outer.join(' AND ')}
      GROUP BY value ORDER BY count DESC, value LIMIT ${VALUES_LIMIT}${settingsSql({ ...READ_SETTINGS, query_plan_max_limit_for_lazy_materialization: VALUES_SAMPLE_EVENTS })}`,
    query_params: { ...params.values, team_id: q.teamId },
    format: 'JSONEachRow',
    timeoutMs: READ_TIMEOUT_MS,
  })
  return (await result.json<{ name: string; count: string | number }>()).map((r) => ({ name: r.name, count: Number(r.count) }))
}

/**
 * For each named event: how many occurred in the last 30 days (whole days, today included) and
 * when the latest happened, from the daily counts kept as events are inserted.
 */
export async function eventVolumes(
  ch: ClickHouse,
  teamId: number,
  names: string[],
): Promise<Map<string, { volume30Day: number; lastSeenAt: string }>> {
  if (names.length === 0) return new Map()
  const result = await ch.reader.query({
    query: `SELECT event, sumIf(events, day > today() - 30) AS volume, max(last_seen) AS last_seen
      FROM event_daily_counts WHERE team_id = ${TEAM} AND event IN {names:Array(String)} GROUP BY event${settingsSql(READ_SETTINGS)}`,
    query_params: { team_id: teamId, names },
    format: 'JSONEachRow',
    timeoutMs: READ_TIMEOUT_MS,
  })
  const rows = await result.json<{ event: string; volume: string | number; last_seen: string }>()
  return new Map(rows.map((r) => [r.event, { volume30Day: Number(r.volume), lastSeenAt: clickHouseDateTimeToIso(r.last_seen) }]))
}

/** Property keys of the team's latest events, and whether any of their values is a number. */
export async function recentPropertyKeys(ch: ClickHouse, teamId: number): Promise<Array<{ key: string; numerical: boolean }>> {
  const result = await ch.reader.query({
    query: `SELECT key, max(JSONType(properties, key) IN ('Int64', 'UInt64', 'Double')) AS numerical
      FROM (SELECT properties FROM ${EVENTS} WHERE team_id = ${TEAM} ORDER BY timestamp DESC LIMIT 10000)
      ARRAY JOIN JSONExtractKeys(properties) AS key
      GROUP BY key ORDER BY key LIMIT 1000${settingsSql(READ_SETTINGS)}`,
    query_params: { team_id: teamId },
    format: 'JSONEachRow',
    timeoutMs: READ_TIMEOUT_MS,
  })
  return (await result.json<{ key: string; numerical: number | string }>()).map((r) => ({
    key: r.key,
    numerical: Number(r.numerical) === 1,
  }))
}

/** An export's page may take longer than an API read. */
const EXPORT_SETTINGS = { max_execution_time: 60 }

export interface StoredEventRow extends StoredEvent {
  /** DateTime64(6) text, for the next page's cursor. */
  timestamp_raw: string
}

/**
 * A page of a project's events with timestamps in [from, to), oldest first, after the cursor
 * (the last row of the previous page): an export reads a range in pages of bounded size.
 */
export async function eventsInRange(
  ch: ClickHouse,
  q: { teamId: number; from: string; to: string; after?: { timestamp: string; uuid: string } | undefined; limit: number },
): Promise<StoredEventRow[]> {
  const result = await ch.reader.query({
    query: `SELECT ${STORED_EVENT_COLUMNS}, toString(timestamp) AS timestamp_raw
      FROM ${EVENTS}
      WHERE team_id = ${TEAM}
        AND timestamp >= parseDateTime64BestEffort({from:String}, 6, 'UTC')
        AND timestamp < parseDateTime64BestEffort({to:String}, 6, 'UTC')
        ${q.after ? `AND (timestamp, uuid) > (toDateTime64({after_ts:String}, 6, 'UTC'), toUUID({after_uuid:String}))` : ''}
      ORDER BY timestamp, uuid
      LIMIT {limit:UInt32}${settingsSql(EXPORT_SETTINGS)}`,
    query_params: {
      team_id: q.teamId,
      from: q.from,
      to: q.to,
      limit: q.limit,
      ...(q.after ? { after_ts: q.after.timestamp, after_uuid: q.after.uuid } : {}),
    },
    format: 'JSONEachRow',
    timeoutMs: (EXPORT_SETTINGS.max_execution_time + 1) * 1000,
  })
  const rows = await result.json<StoredEventRow>()
  return rows.map((r) => ({ ...r, timestamp: clickHouseDateTimeToIso(r.timestamp) }))
}
