import type { ClickHouse } from '../connect'

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
