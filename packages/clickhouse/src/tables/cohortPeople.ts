import type { ClickHouse } from '../connect'
import { currentPersonsSql, personPropertiesSql, SqlParams, type PropertyExpression } from '../propertyConditions'

const TEAM = '{team_id:Int64}'

export interface MembersVersion {
  teamId: number
  cohortId: number
  version: number
}

const versionParams = (v: MembersVersion) => ({ team_id: v.teamId, cohort_id: v.cohortId, version: v.version })

/** Stores, under `v.version`, every current person of the team that the definition matches. */
export async function calculateMembers(ch: ClickHouse, v: MembersVersion, definition: PropertyExpression): Promise<void> {
  const params = new SqlParams()
  const where = personPropertiesSql(definition, TEAM, params)
  await ch.writer.command({
    query: `INSERT INTO cohortpeople (person_id, cohort_id, team_id, version)
      SELECT id, {cohort_id:Int64}, ${TEAM}, {version:UInt64} FROM (${currentPersonsSql(TEAM)}) WHERE ${where}`,
    query_params: { ...params.values, ...versionParams(v) },
  })
}

/** Stores a static cohort's list under `v.version`. */
export async function insertMembers(ch: ClickHouse, v: MembersVersion, personUuids: readonly string[]): Promise<void> {
  if (personUuids.length === 0) return
  const rows = personUuids.map((id) => JSON.stringify({ person_id: id, cohort_id: v.cohortId, team_id: v.teamId, version: v.version }))
  await ch.insertEncoded('cohortpeople', 'JSONEachRow', Buffer.from(rows.join('\n')))
}

export async function countMembers(ch: ClickHouse, v: MembersVersion): Promise<number> {
  const result = await ch.reader.query({
    query: `SELECT uniqExact(person_id) AS n FROM cohortpeople
      WHERE team_id = ${TEAM} AND cohort_id = {cohort_id:Int64} AND version = {version:UInt64}`,
    query_params: versionParams(v),
    format: 'JSONEachRow',
  })
  const [row] = await result.json<{ n: string | number }>()
  return Number(row?.n ?? 0)
}

/**
 * Drops the members of calculations older than `v.version`, which no reader uses any more.
 * The delete is a mutation of every part of the table, and one that waits for it can wait
 * behind a merge for a second (the embedded engine waits by default): calculations run one at
 * a time, so the next cohort's would wait with it. So a cohort's first calculation, which has
 * nothing older, runs none, and the rest leave it to the engine's background.
 */
export async function removeOlderMembers(ch: ClickHouse, v: MembersVersion): Promise<void> {
  const where = `team_id = ${TEAM} AND cohort_id = {cohort_id:Int64} AND version < {version:UInt64}`
  const older = await ch.reader.query({
    query: `SELECT 1 FROM cohortpeople WHERE ${where} LIMIT 1`,
    query_params: versionParams(v),
    format: 'JSONEachRow',
  })
  if ((await older.json()).length === 0) return
  await ch.writer.command({
    query: `ALTER TABLE ${ch.layout.alterTarget('cohortpeople')} DELETE WHERE ${where} SETTINGS mutations_sync = 0`,
    query_params: versionParams(v),
  })
}

/** Every (cohort, version) whose members hold the person: the caller keeps each cohort's current version. */
export async function membershipsOf(
  ch: ClickHouse,
  teamId: number,
  personUuid: string,
): Promise<Array<{ cohortId: number; version: number }>> {
  const result = await ch.reader.query({
    query: `SELECT DISTINCT cohort_id, version FROM cohortpeople WHERE team_id = ${TEAM} AND person_id = {person_id:UUID}`,
    query_params: { team_id: teamId, person_id: personUuid },
    format: 'JSONEachRow',
  })
  const rows = await result.json<{ cohort_id: string | number; version: string | number }>()
  return rows.map((r) => ({ cohortId: Number(r.cohort_id), version: Number(r.version) }))
}
