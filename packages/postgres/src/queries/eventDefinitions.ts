import type { Sql } from '../connect'

export interface EventSighting {
  projectId: number
  name: string
  id: string
  lastSeenAt: Date
}

/**
 * Records that events with these names were seen: creates missing definitions and moves
 * last_seen_at forward. One statement for a whole flush of events.
 */
export async function upsertEventSightings(sql: Sql, sightings: EventSighting[]) {
  if (sightings.length === 0) return
  await sql`
    insert into event_definitions (id, project_id, name, last_seen_at)
    select * from unnest(
      ${sightings.map((s) => s.id)}::uuid[],
      ${sightings.map((s) => s.projectId)}::int[],
      ${sightings.map((s) => s.name)}::text[],
      ${sightings.map((s) => s.lastSeenAt.toISOString())}::timestamptz[])
    on conflict (project_id, name) do update
      set last_seen_at = greatest(event_definitions.last_seen_at, excluded.last_seen_at)`
}
