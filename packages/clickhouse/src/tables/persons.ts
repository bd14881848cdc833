import type { ClickHouse } from '../connect'
import { currentDistinctIdsSql, currentPersonsSql, personPropertiesSql, SqlParams, type PropertyExpression } from '../propertyConditions'

/** A row of `person`: the latest version of an id is the person; is_deleted marks it gone. */
export interface PersonCopy {
  id: string
  /** DateTime64(3) text. */
  created_at: string
  team_id: number
  properties: string
  is_identified: 0 | 1
  is_deleted: 0 | 1
  version: number
}

/** A row of `person_distinct_id2`: the latest version of a distinct id maps it. */
export interface DistinctIdCopy {
  team_id: number
  distinct_id: string
  person_id: string
  is_deleted: 0 | 1
  version: number
}

const encode = (rows: readonly object[]) => Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n'))

export async function insertPersons(ch: ClickHouse, rows: readonly PersonCopy[]): Promise<void> {
  if (rows.length > 0) await ch.insertEncoded('person', 'JSONEachRow', encode(rows))
}

export async function insertDistinctIds(ch: ClickHouse, rows: readonly DistinctIdCopy[]): Promise<void> {
  if (rows.length > 0) await ch.insertEncoded('person_distinct_id2', 'JSONEachRow', encode(rows))
}

export interface PersonsQuery {
  teamId: number
  /** Persons whose properties or one of whose distinct ids contain each of these terms (case-insensitively). */
  search?: readonly string[] | undefined
  distinctId?: string | undefined
  properties?: PropertyExpression | undefined
  /** Only members of this cohort (its current version). */
  cohort?: { id: number; version: number } | undefined
  limit: number
  offset: number
}

const TEAM = '{team_id:Int64}'

/** The uuids of a page of the team's persons, newest first, and how many match in all. */
export async function queryPersonIds(ch: ClickHouse, q: PersonsQuery): Promise<{ count: number; uuids: string[] }> {
  const params = new SqlParams()
  const clauses = ['1']
  for (const term of q.search ?? []) {
    const search = params.add('String', term)
    clauses.push(`(positionCaseInsensitiveUTF8(properties, ${search}) > 0
      OR id IN (SELECT person_id FROM (${currentDistinctIdsSql(TEAM)}) WHERE positionCaseInsensitiveUTF8(distinct_id, ${search}) > 0))`)
  }
  if (q.distinctId !== undefined) {
    clauses.push(`id IN (SELECT person_id FROM (${currentDistinctIdsSql(TEAM)}) WHERE distinct_id = ${params.add('String', q.distinctId)})`)
  }
  if (q.properties) clauses.push(personPropertiesSql(q.properties, TEAM, params))
  if (q.cohort) {
    clauses.push(`id IN (SELECT person_id FROM cohortpeople WHERE team_id = ${TEAM}
      AND cohort_id = ${params.add('Int64', q.cohort.id)} AND version = ${params.add('UInt64', q.cohort.version)})`)
  }
  const from = `(${currentPersonsSql(TEAM)}) WHERE ${clauses.join(' AND ')}`
  const query_params = { ...params.values, team_id: q.teamId }
  const [page, total] = await Promise.all([
    ch.reader.query({
      query: `SELECT toString(id) AS id FROM ${from} ORDER BY created_at DESC, id DESC LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
      query_params: { ...query_params, limit: q.limit, offset: q.offset },
      format: 'JSONEachRow',
    }),
    ch.reader.query({ query: `SELECT count() AS count FROM ${from}`, query_params, format: 'JSONEachRow' }),
  ])
  const [count] = await total.json<{ count: string | number }>()
  return { count: Number(count?.count ?? 0), uuids: (await page.json<{ id: string }>()).map((r) => r.id) }
}
