import type { ClickHouse } from '../connect'
import { MUTATIONS_SYNC } from '../layout'

export const DEAD_LETTER_TABLE = 'events_dead_letter_queue'

/** A row of events_dead_letter_queue (PostHog's columns); raw_payload keeps the event as received. */
export interface DeadLetterRow {
  id: string
  event_uuid: string
  event: string
  properties: string
  distinct_id: string
  team_id: number
  elements_chain: string
  created_at: string
  ip: string
  site_url: string
  now: string
  raw_payload: string
  error_timestamp: string
  error_location: string
  error: string
  tags: string[]
}

export async function insertDeadLetters(ch: ClickHouse, rows: DeadLetterRow[]): Promise<void> {
  if (rows.length === 0) return
  const body = Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n'))
  await ch.insertEncoded(DEAD_LETTER_TABLE, 'JSONEachRow', body)
}

export async function countDeadLetters(ch: ClickHouse, teamId: number): Promise<number> {
  const result = await ch.reader.query({
    query: `SELECT count() AS n FROM ${DEAD_LETTER_TABLE} WHERE team_id = {team_id:Int64}`,
    query_params: { team_id: teamId },
    format: 'JSONEachRow',
  })
  const [row] = await result.json<{ n: string | number }>()
  return Number(row?.n ?? 0)
}

/** A dead letter as it is listed: what failed, where, and the payload kept. */
export interface StoredDeadLetter {
  id: string
  event_uuid: string
  event: string
  distinct_id: string
  team_id: number
  ip: string
  raw_payload: string
  error_timestamp: string
  error_location: string
  error: string
  tags: string[]
}

export interface DeadLetterQuery {
  teamId?: number | undefined
  ids?: string[] | undefined
  limit: number
}

/** Dead letters, newest first (FINAL: a letter written twice is listed once). */
export async function listDeadLetters(ch: ClickHouse, q: DeadLetterQuery): Promise<StoredDeadLetter[]> {
  const clauses = ['1']
  const params: Record<string, unknown> = { limit: q.limit }
  if (q.teamId !== undefined) {
    clauses.push('team_id = {team_id:Int64}')
    params.team_id = q.teamId
  }
  if (q.ids !== undefined) {
    clauses.push('id IN {ids:Array(UUID)}')
    params.ids = q.ids
  }
  const result = await ch.reader.query({
    query: `SELECT id, event_uuid, event, distinct_id, team_id, ip, raw_payload, error_timestamp, error_location, error, tags
      FROM ${DEAD_LETTER_TABLE} FINAL WHERE ${clauses.join(' AND ')}
      ORDER BY error_timestamp DESC, id LIMIT {limit:UInt32}`,
    query_params: params,
    format: 'JSONEachRow',
  })
  return (await result.json<StoredDeadLetter>()).map((row) => ({ ...row, team_id: Number(row.team_id) }))
}

export async function deleteDeadLetters(ch: ClickHouse, ids: string[]): Promise<void> {
  if (ids.length === 0) return
  await ch.writer.command({
    query: `ALTER TABLE ${ch.layout.alterTarget(DEAD_LETTER_TABLE)} DELETE WHERE id IN {ids:Array(UUID)}`,
    query_params: { ids },
    clickhouse_settings: { mutations_sync: MUTATIONS_SYNC },
  })
}

/** Removes the dead letters the filter selects (every one without a filter); answers how many there were. */
export async function purgeDeadLetters(ch: ClickHouse, q: Omit<DeadLetterQuery, 'limit'>): Promise<number> {
  const clauses = ['1']
  const params: Record<string, unknown> = {}
  if (q.teamId !== undefined) {
    clauses.push('team_id = {team_id:Int64}')
    params.team_id = q.teamId
  }
  if (q.ids !== undefined) {
    clauses.push('id IN {ids:Array(UUID)}')
    params.ids = q.ids
  }
  const where = clauses.join(' AND ')
  const result = await ch.reader.query({
    query: `SELECT count() AS n FROM ${DEAD_LETTER_TABLE} FINAL WHERE ${where}`,
    query_params: params,
    format: 'JSONEachRow',
  })
  const count = Number((await result.json<{ n: string | number }>())[0]?.n ?? 0)
  if (count === 0) return 0
  await ch.writer.command({
    query: `ALTER TABLE ${ch.layout.alterTarget(DEAD_LETTER_TABLE)} DELETE WHERE ${where}`,
    query_params: params,
    clickhouse_settings: { mutations_sync: MUTATIONS_SYNC },
  })
  return count
}
