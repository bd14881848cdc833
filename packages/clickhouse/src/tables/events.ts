import type { ClickHouse } from '../connect'
import { clickHouseDateTimeToIso } from '../datetime'

export const EVENTS_TABLE = 'events'
export const NIL_UUID = '00000000-0000-0000-0000-000000000000'

/** One row of the events table, as the ingestion pipeline produces it. */
export interface EventRow {
  uuid: string
  event: string
  /** The properties object, already serialised as JSON text. */
  properties: string
  /** DateTime64(6) text, see toClickHouseDateTime. */
  timestamp: string
  team_id: number
  distinct_id: string
  elements_chain: string
  created_at: string
  person_id: string
}

/** Encodes a row as one JSONEachRow line; done as each event arrives, not at flush time. */
export function encodeEventRow(row: EventRow): string {
  return `${JSON.stringify(row)}\n`
}

export async function insertEncodedEvents(ch: ClickHouse, body: Buffer): Promise<void> {
  await ch.insertEncoded(EVENTS_TABLE, 'JSONEachRow', body)
}

export interface EventsQuery {
  teamId: number
  event?: string | undefined
  distinctIds?: string[] | undefined
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

/** The filter as a WHERE clause of fixed fragments; every value travels as a query parameter. */
function eventsWhere(q: EventsQuery): { where: string; params: Record<string, unknown> } {
  const clauses = ['team_id = {team_id:Int64}']
  const params: Record<string, unknown> = { team_id: q.teamId }
  if (q.event !== undefined) {
    clauses.push('event = {event:String}')
    params.event = q.event
  }
  if (q.distinctIds !== undefined) {
    clauses.push('distinct_id IN {distinct_ids:Array(String)}')
    params.distinct_ids = q.distinctIds
  }
  if (q.after !== undefined) {
    clauses.push(`timestamp > parseDateTime64BestEffort({after:String}, 6, 'UTC')`)
    params.after = q.after
  }
  if (q.before !== undefined) {
    clauses.push(`timestamp < parseDateTime64BestEffort({before:String}, 6, 'UTC')`)
    params.before = q.before
  }
  return { where: clauses.join(' AND '), params }
}

/** A page of events, newest first, and how many match in all. */
export async function queryEvents(ch: ClickHouse, q: EventsQuery): Promise<{ count: number; rows: StoredEvent[] }> {
  const { where, params } = eventsWhere(q)
  const [rowsResult, countResult] = await Promise.all([
    ch.reader.query({
      query: `SELECT uuid, event, properties, timestamp, distinct_id, elements_chain, person_id
        FROM events WHERE ${where}
        ORDER BY timestamp DESC, uuid DESC
        LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      query_params: { ...params, limit: q.limit, offset: q.offset },
      format: 'JSONEachRow',
    }),
    ch.reader.query({
      query: `SELECT count() AS count FROM events WHERE ${where}`,
      query_params: params,
      format: 'JSONEachRow',
    }),
  ])
  const rows = await rowsResult.json<StoredEvent>()
  const [count] = await countResult.json<{ count: string | number }>()
  return {
    count: Number(count?.count ?? 0),
    rows: rows.map((r) => ({ ...r, timestamp: clickHouseDateTimeToIso(r.timestamp) })),
  }
}

export async function deleteTeamEvents(ch: ClickHouse, teamId: number): Promise<void> {
  await ch.writer.command({
    query: 'ALTER TABLE events DELETE WHERE team_id = {team_id:Int64}',
    query_params: { team_id: teamId },
  })
}
