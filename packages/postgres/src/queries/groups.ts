import type { Pool, Sql } from '../connect'
import { containsPattern } from './pages'

export interface GroupRow {
  project_id: number
  group_type_index: number
  group_key: string
  group_properties: Record<string, unknown>
  created_at: Date
  version: number
}

/** PostHog's limit on a group key; longer keys name no group. */
export const MAX_GROUP_KEY_LENGTH = 400

/** What a batch of `$groupidentify` events asks of one group: its properties set, in event order. */
export interface GroupUpdate {
  groupTypeIndex: number
  groupKey: string
  set: Record<string, unknown>
  /** When the group's first event happened: a new group is as old as it. */
  createdAt: Date
}

/**
 * Creates or updates the groups in one statement: properties are set over the stored ones, as
 * PostHog's `$group_set` does, and a group whose properties do not change is not written (its
 * version stays). Answers the groups written, to be copied to ClickHouse.
 */
export async function upsertGroups(sql: Sql, projectId: number, updates: readonly GroupUpdate[]): Promise<GroupRow[]> {
  if (updates.length === 0) return []
  const rows = await sql<GroupRow[]>`
    insert into groups (project_id, group_type_index, group_key, group_properties, created_at, version)
    select ${projectId}, u.type_index, u.group_key, u.properties, u.created_at, 1
    from jsonb_to_recordset(${sql.json(
      updates.map((u) => ({
        type_index: u.groupTypeIndex,
        group_key: u.groupKey,
        properties: u.set,
        created_at: u.createdAt.toISOString(),
      })) as never,
    )}) as u(type_index smallint, group_key text, properties jsonb, created_at timestamptz)
    where exists (select 1 from projects p where p.id = ${projectId})
    on conflict (project_id, group_type_index, group_key) do update
      set group_properties = groups.group_properties || excluded.group_properties,
        created_at = least(groups.created_at, excluded.created_at),
        version = groups.version + 1
      where groups.group_properties || excluded.group_properties is distinct from groups.group_properties
        or excluded.created_at < groups.created_at
    returning project_id, group_type_index, group_key, group_properties, created_at, version::int`
  return [...rows]
}

/** The stored properties of groups, for flag evaluation: by type index, then key. */
export async function groupPropertiesOf(
  sql: Sql,
  projectId: number,
  groups: readonly { groupTypeIndex: number; groupKey: string }[],
): Promise<Array<{ group_type_index: number; group_key: string; group_properties: Record<string, unknown> }>> {
  if (groups.length === 0) return []
  const rows = await sql<{ group_type_index: number; group_key: string; group_properties: Record<string, unknown> }[]>`
    select g.group_type_index, g.group_key, g.group_properties
    from groups g join unnest(${groups.map((g) => g.groupTypeIndex)}::smallint[], ${groups.map((g) => g.groupKey)}::text[]) as w(type_index, group_key)
      on g.group_type_index = w.type_index and g.group_key = w.group_key
    where g.project_id = ${projectId}`
  return [...rows]
}

/** Where a page of groups starts: just after (or, going back, just before) this group in the list's order. */
export interface GroupPosition {
  /** The group's creation time in microseconds since the epoch, as PostgreSQL keeps it. */
  createdAtMicros: string
  groupKey: string
  /** The page ends before the position instead of starting after it. */
  reverse: boolean
}

export interface GroupListRow extends GroupRow {
  created_at_micros: string
}

/**
 * Up to `limit` groups of a type, newest first (key order among groups created together), after
 * `position` or, in reverse, just before it: those whose key contains `groupKey`, and with
 * `search`, those whose properties contain it or whose key is it (case-insensitively), as PostHog lists them.
 */
export async function listGroups(
  sql: Sql,
  projectId: number,
  query: { groupTypeIndex: number; groupKey?: string | undefined; search?: string | undefined; limit: number; position?: GroupPosition },
): Promise<GroupListRow[]> {
  const position = query.position
  const at = position ? sql`('epoch'::timestamptz + ${position.createdAtMicros}::bigint * interval '1 microsecond')` : sql``
  const after = !position
    ? sql``
    : position.reverse
      ? sql`and (created_at > ${at} or (created_at = ${at} and group_key < ${position.groupKey}))`
      : sql`and (created_at < ${at} or (created_at = ${at} and group_key > ${position.groupKey}))`
  const order = position?.reverse ? sql`order by created_at, group_key desc` : sql`order by created_at desc, group_key`
  const rows = await sql<GroupListRow[]>`
    select project_id, group_type_index, group_key, group_properties, created_at, version::int,
      ((extract(epoch from created_at) * 1000000)::bigint)::text as created_at_micros
    from groups
    where project_id = ${projectId} and group_type_index = ${query.groupTypeIndex}
      ${query.groupKey ? sql`and group_key ilike ${containsPattern(query.groupKey)}` : sql``}
      ${query.search ? sql`and (group_properties::text ilike ${containsPattern(query.search)} or lower(group_key) = lower(${query.search}))` : sql``}
      ${after}
    ${order} limit ${query.limit}`
  return position?.reverse ? [...rows].reverse() : [...rows]
}

export async function findGroup(sql: Sql, projectId: number, groupTypeIndex: number, groupKey: string): Promise<GroupRow | undefined> {
  const [row] = await sql<GroupRow[]>`
    select project_id, group_type_index, group_key, group_properties, created_at, version::int from groups
    where project_id = ${projectId} and group_type_index = ${groupTypeIndex} and group_key = ${groupKey}`
  return row
}

/** Creates a group; undefined when the project already has one of this type and key. */
export async function insertGroup(
  sql: Sql,
  projectId: number,
  group: { groupTypeIndex: number; groupKey: string; properties: Record<string, unknown> },
): Promise<GroupRow | undefined> {
  const [row] = await sql<GroupRow[]>`
    insert into groups (project_id, group_type_index, group_key, group_properties, version)
    values (${projectId}, ${group.groupTypeIndex}, ${group.groupKey}, ${sql.json(group.properties as never)}, 1)
    on conflict do nothing
    returning project_id, group_type_index, group_key, group_properties, created_at, version::int`
  return row
}

/** Replaces a group's properties; answers the group as stored, with its version moved on, or undefined when it does not exist. */
export async function setGroupProperties(
  sql: Pool,
  projectId: number,
  groupTypeIndex: number,
  groupKey: string,
  change: (properties: Record<string, unknown>) => Record<string, unknown>,
): Promise<GroupRow | undefined> {
  return sql.begin(async (tx) => {
    const [current] = await tx<GroupRow[]>`
      select group_properties from groups
      where project_id = ${projectId} and group_type_index = ${groupTypeIndex} and group_key = ${groupKey} for update`
    if (!current) return undefined
    const [row] = await tx<GroupRow[]>`
      update groups set group_properties = ${tx.json(change(current.group_properties) as never)}, version = version + 1
      where project_id = ${projectId} and group_type_index = ${groupTypeIndex} and group_key = ${groupKey}
      returning project_id, group_type_index, group_key, group_properties, created_at, version::int`
    return row
  })
}
