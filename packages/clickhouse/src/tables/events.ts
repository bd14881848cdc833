import type { ClickHouse } from '../connect'
import { clickHouseDateTimeToIso } from '../datetime'
import { distinctIdsOfPersonsSql, eventPropertiesSql, SqlParams, type PropertyExpression } from '../propertyConditions'

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
  return `${JSON.stringify(line)}\n`
}

/**
 * Inserts rows encoded by encodeEventRow, or by its earlier form that wrote the properties as a
 * string. A batch may span any number of months (a backfill, clocks far off):
 * the events table's monthly partitions are not limited per insert, or a batch over 100 months
 * would be refused again and again and hold every event behind it.
 */
export async function insertEncodedEvents(ch: ClickHouse, body: Buffer): Promise<void> {
  await ch.insertEncoded(EVENTS_TABLE, 'JSONEachRow', body, {
    input_format_json_read_objects_as_strings: 1,
    max_partitions_per_insert_block: 0,
  })
}

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
 * Every read of events: FINAL collapses rows stored twice (an insert retried after a crash
 * replays the spool from its last recorded position), so each event counts once.
 */
const EVENTS = 'events FINAL'

/** The filter as a WHERE clause of fixed fragments; every value travels as a query parameter. */
function eventsWhere(q: EventsQuery): { where: string; params: Record<string, unknown> } {
  const params = new SqlParams()
  const clauses = [`team_id = ${TEAM}`]
  if (q.event !== undefined) clauses.push(`event = ${params.add('String', q.event)}`)
  if (q.distinctIds !== undefined) clauses.push(`distinct_id IN ${params.add('Array(String)', q.distinctIds)}`)
  if (q.personId !== undefined) {
    clauses.push(`distinct_id IN (${distinctIdsOfPersonsSql(TEAM, params.add('Array(UUID)', [q.personId]))})`)
  }
  if (q.after !== undefined) clauses.push(`timestamp > parseDateTime64BestEffort(${params.add('String', q.after)}, 6, 'UTC')`)
  if (q.before !== undefined) clauses.push(`timestamp < parseDateTime64BestEffort(${params.add('String', q.before)}, 6, 'UTC')`)
  if (q.properties) clauses.push(eventPropertiesSql(q.properties, TEAM, params))
  return { where: clauses.join(' AND '), params: { ...params.values, team_id: q.teamId } }
}

const toStored = (r: StoredEvent): StoredEvent => ({ ...r, timestamp: clickHouseDateTimeToIso(r.timestamp) })

/** A page of events, newest first, and how many match in all. */
export async function queryEvents(ch: ClickHouse, q: EventsQuery): Promise<{ count: number; rows: StoredEvent[] }> {
  const { where, params } = eventsWhere(q)
  const [rowsResult, countResult] = await Promise.all([
    ch.reader.query({
      query: `SELECT ${STORED_EVENT_COLUMNS}
        FROM ${EVENTS} WHERE ${where}
        ORDER BY timestamp DESC, uuid DESC
        LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      query_params: { ...params, limit: q.limit, offset: q.offset },
      format: 'JSONEachRow',
    }),
    ch.reader.query({
      query: `SELECT count() AS count FROM ${EVENTS} WHERE ${where}`,
      query_params: params,
      format: 'JSONEachRow',
    }),
  ])
  const rows = await rowsResult.json<StoredEvent>()
  const [count] = await countResult.json<{ count: string | number }>()
  return { count: Number(count?.count ?? 0), rows: rows.map(toStored) }
}

export async function findEvent(ch: ClickHouse, teamId: number, uuid: string): Promise<StoredEvent | undefined> {
  const result = await ch.reader.query({
    query: `SELECT ${STORED_EVENT_COLUMNS} FROM ${EVENTS} WHERE team_id = ${TEAM} AND uuid = {uuid:UUID} LIMIT 1`,
    query_params: { team_id: teamId, uuid },
    format: 'JSONEachRow',
  })
  const [row] = await result.json<StoredEvent>()
  return row && toStored(row)
}

/** Event names PostHog treats as its own rather than the project's custom events. */
const BUILT_IN_EVENTS = ['$autocapture', '$pageview', '$identify', '$pageleave', '$screen']

/** How far back property values are looked up, as PostHog does, so the lookup stays cheap. */
const VALUES_WINDOW_DAYS = 7
const VALUES_LIMIT = 100

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
  if (q.key === 'custom_event') {
    clauses.push(`event NOT IN ${params.add('Array(String)', BUILT_IN_EVENTS)}`)
    select = 'SELECT event AS value'
  } else {
    const key = params.add('String', q.key)
    clauses.push(`JSONHas(properties, ${key})`)
    select = `SELECT arrayJoin(if(JSONType(properties, ${key}) = 'Array',
        JSONExtractArrayRaw(properties, ${key}), [JSONExtractRaw(properties, ${key})])) AS raw,
      if(JSONType(raw) = 'String', JSONExtractString(raw), raw) AS value`
  }
  const outer = [`value != ''`, q.key === 'custom_event' ? '1' : `raw != 'null'`]
  if (q.search) outer.push(`positionCaseInsensitiveUTF8(value, ${params.add('String', q.search)}) > 0`)
  const result = await ch.reader.query({
    query: `SELECT value AS name, count() AS count FROM (${select} FROM ${EVENTS} WHERE ${clauses.join(' AND ')})
      WHERE ${outer.join(' AND ')}
      GROUP BY value ORDER BY count DESC, value LIMIT ${VALUES_LIMIT}`,
    query_params: { ...params.values, team_id: q.teamId },
    format: 'JSONEachRow',
  })
  return (await result.json<{ name: string; count: string | number }>()).map((r) => ({ name: r.name, count: Number(r.count) }))
}

/** For each named event: how many occurred in the last 30 days and when the latest happened. */
export async function eventVolumes(
  ch: ClickHouse,
  teamId: number,
  names: string[],
): Promise<Map<string, { volume30Day: number; lastSeenAt: string }>> {
  if (names.length === 0) return new Map()
  const result = await ch.reader.query({
    query: `SELECT event, countIf(timestamp >= now64(6, 'UTC') - INTERVAL 30 DAY) AS volume, max(timestamp) AS last_seen
      FROM ${EVENTS} WHERE team_id = ${TEAM} AND event IN {names:Array(String)} GROUP BY event`,
    query_params: { team_id: teamId, names },
    format: 'JSONEachRow',
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
      GROUP BY key ORDER BY key LIMIT 1000`,
    query_params: { team_id: teamId },
    format: 'JSONEachRow',
  })
  return (await result.json<{ key: string; numerical: number | string }>()).map((r) => ({
    key: r.key,
    numerical: Number(r.numerical) === 1,
  }))
}
