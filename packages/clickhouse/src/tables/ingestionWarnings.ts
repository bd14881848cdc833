import type { ClickHouse } from '../connect'

export const INGESTION_WARNINGS_TABLE = 'ingestion_warnings'

/** A row of ingestion_warnings: `details` is JSON text, `timestamp` DateTime64(6) text. */
export interface IngestionWarningRow {
  team_id: number
  source: string
  type: string
  details: string
  timestamp: string
}

export async function insertIngestionWarnings(ch: ClickHouse, rows: readonly IngestionWarningRow[]): Promise<void> {
  if (rows.length === 0) return
  await ch.insertEncoded(INGESTION_WARNINGS_TABLE, 'JSONEachRow', Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n')))
}

/** The warnings of one type over the period asked for. */
export interface IngestionWarningGroup {
  type: string
  count: number
  /** The most recent warnings, newest first: details as JSON text, time as ClickHouse text. */
  examples: Array<{ details: string; timestamp: string }>
  /** How many warnings each day had, oldest day first (`YYYY-MM-DD`). */
  daily: Array<{ day: string; count: number }>
}

export interface IngestionWarningQuery {
  teamId: number
  /** Only warnings after this many days ago. */
  days: number
  /** Only warnings whose type or details contain this text. */
  search?: string | undefined
  /** How many recent warnings each type lists. */
  examples: number
}

type Pair = [string, string] | Record<string, string>
type CountedDay = [string | number, string] | Record<string, string | number>

const pairOf = (value: Pair): [string, string] => (Array.isArray(value) ? value : [Object.values(value)[0]!, Object.values(value)[1]!])
const dayOf = (value: CountedDay): [number, string] => {
  const [count, day] = Array.isArray(value) ? value : [Object.values(value)[0]!, Object.values(value)[1]!]
  return [Number(count), String(day)]
}

/** The warnings of a project grouped by type, as PostHog summarises them: a count, recent examples and daily counts. */
export async function summariseIngestionWarnings(ch: ClickHouse, q: IngestionWarningQuery): Promise<IngestionWarningGroup[]> {
  const result = await ch.reader.query({
    query: `SELECT type, count() AS total,
        arraySlice(arrayReverseSort(x -> x.2, groupArray((details, toString(timestamp)))), 1, {examples:UInt32}) AS recent,
        groupUniqArray((day_count, toString(day))) AS daily
      FROM (
        SELECT type, details, timestamp, toDate(timestamp) AS day, count() OVER (PARTITION BY type, toDate(timestamp)) AS day_count
        FROM ${INGESTION_WARNINGS_TABLE}
        WHERE team_id = {team_id:Int64}
          AND timestamp > now64(6) - toIntervalDay({days:UInt32})
          AND ({search:String} = '' OR positionUTF8(details, {search:String}) > 0 OR positionUTF8(type, {search:String}) > 0)
      )
      GROUP BY type`,
    query_params: { team_id: q.teamId, days: q.days, search: q.search ?? '', examples: q.examples },
    format: 'JSONEachRow',
  })
  const rows = await result.json<{ type: string; total: string | number; recent: Pair[]; daily: CountedDay[] }>()
  return rows.map((row) => ({
    type: row.type,
    count: Number(row.total),
    examples: row.recent.map(pairOf).map(([details, timestamp]) => ({ details, timestamp })),
    daily: row.daily
      .map(dayOf)
      .map(([count, day]) => ({ day, count }))
      .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0)),
  }))
}
