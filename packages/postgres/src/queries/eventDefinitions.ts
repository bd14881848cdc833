import type { Sql } from '../connect'
import { everyTermIn, selectPage, type PageWindow } from './pages'

export interface EventSighting {
  projectId: number
  name: string
  id: string
  lastSeenAt: Date
}

/**
 * Records that events with these names were seen: creates missing definitions and moves
 * last_seen_at forward. One statement for a whole flush of events. Sightings of projects
 * deleted while their events were on their way are dropped: one of them would otherwise fail
 * the statement for every project, flush after flush.
 */
export async function upsertEventSightings(sql: Sql, sightings: EventSighting[]) {
  if (sightings.length === 0) return
  await sql`
    insert into event_definitions (id, project_id, name, last_seen_at)
    select s.* from unnest(
      ${sightings.map((s) => s.id)}::uuid[],
      ${sightings.map((s) => s.projectId)}::int[],
      ${sightings.map((s) => s.name)}::text[],
      ${sightings.map((s) => s.lastSeenAt.toISOString())}::timestamptz[]) as s(id, project_id, name, last_seen_at)
    where exists (select 1 from projects p where p.id = s.project_id)
    on conflict (project_id, name) do update
      set last_seen_at = greatest(event_definitions.last_seen_at, excluded.last_seen_at)`
}

export interface EventDefinitionRow {
  id: string
  project_id: number
  name: string
  owner_id: number | null
  description: string
  tags: string[]
  verified: boolean
  verified_at: Date | null
  verified_by_id: number | null
  post_to_chat: boolean
  created_at: Date
  updated_at: Date
  updated_by_id: number | null
  last_seen_at: Date | null
}

/** The project's definitions by name, optionally those whose name contains every term of `search`. */
export function listEventDefinitions(
  sql: Sql,
  projectId: number,
  query: PageWindow & { search?: readonly string[] | undefined },
): Promise<{ count: number; rows: EventDefinitionRow[] }> {
  const where = sql`project_id = ${projectId} and ${everyTermIn(sql, ['name'], query.search ?? [])}`
  return selectPage<EventDefinitionRow>(sql, { table: 'event_definitions', where, orderBy: sql`name`, page: query })
}

export async function findEventDefinition(sql: Sql, projectId: number, id: string): Promise<EventDefinitionRow | undefined> {
  const [row] = await sql<EventDefinitionRow[]>`select * from event_definitions where project_id = ${projectId} and id = ${id}`
  return row
}

export interface EventDefinitionWrite {
  owner_id?: number | null
  description?: string
  tags?: string[]
  post_to_chat?: boolean
  /** Verifying records who and when; unverifying clears both. */
  verified?: { by: number } | false
}

export async function updateEventDefinition(
  sql: Sql,
  projectId: number,
  id: string,
  updatedBy: number,
  write: EventDefinitionWrite,
): Promise<EventDefinitionRow | undefined> {
  const values: Record<string, unknown> = { updated_at: sql`now()`, updated_by_id: updatedBy }
  if (write.owner_id !== undefined) values.owner_id = write.owner_id
  if (write.description !== undefined) values.description = write.description
  if (write.tags !== undefined) values.tags = sql.json(write.tags)
  if (write.post_to_chat !== undefined) values.post_to_chat = write.post_to_chat
  if (write.verified === false) Object.assign(values, { verified: false, verified_at: null, verified_by_id: null })
  const [row] = await sql<EventDefinitionRow[]>`
    update event_definitions set ${sql(values as never)}
      ${
        write.verified
          ? sql`, verified = true, verified_at = case when verified then verified_at else now() end,
        verified_by_id = case when verified then verified_by_id else ${write.verified.by}::int end`
          : sql``
      }
    where project_id = ${projectId} and id = ${id}
    returning *`
  return row
}

/** Every event name seen in the project, by name. */
export async function eventNames(sql: Sql, projectId: number): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`select name from event_definitions where project_id = ${projectId} order by name`
  return rows.map((r) => r.name)
}
