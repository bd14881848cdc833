import type { Sql } from '../connect'

export interface GroupTypeRow {
  group_type: string
  group_type_index: number
}

export const MAX_GROUP_TYPES = 5
/** PostHog's limit on a group type's name; longer ones are not registered. */
export const MAX_GROUP_TYPE_LENGTH = 400

export async function groupTypeMapping(sql: Sql, projectId: number): Promise<GroupTypeRow[]> {
  return sql<GroupTypeRow[]>`
    select group_type, group_type_index from group_type_mappings where project_id = ${projectId} order by group_type_index`
}

/**
 * Gives each new group type the next free index, up to five per project (more are ignored, as
 * PostHog does). Two servers registering at once both stop at the unique keys, and the one
 * that lost takes the next index on its next try. Answers whether any type was added.
 */
export async function registerGroupTypes(sql: Sql, projectId: number, groupTypes: readonly string[]): Promise<boolean> {
  let added = false
  for (const groupType of groupTypes.filter((type) => type.length <= MAX_GROUP_TYPE_LENGTH)) {
    for (let attempt = 0; attempt < MAX_GROUP_TYPES; attempt++) {
      const [state] = await sql<{ known: boolean; full: boolean }[]>`
        select bool_or(group_type = ${groupType}) is true as known, count(*) >= ${MAX_GROUP_TYPES} as full
        from group_type_mappings where project_id = ${projectId}`
      if (state?.full) return added
      if (state?.known) break
      const inserted = await sql`
        insert into group_type_mappings (project_id, group_type, group_type_index)
        select ${projectId}, ${groupType}, coalesce(max(group_type_index) + 1, 0) from group_type_mappings where project_id = ${projectId}
        having coalesce(max(group_type_index) + 1, 0) < ${MAX_GROUP_TYPES}
        on conflict do nothing
        returning 1`
      if (inserted.length > 0) {
        added = true
        break
      }
    }
  }
  return added
}

export interface GroupTypeDetailRow extends GroupTypeRow {
  name_singular: string | null
  name_plural: string | null
  default_columns: string[] | null
  created_at: Date | null
}

/** The project's group types with what its users named them, by index. */
export async function listGroupTypes(sql: Sql, projectId: number): Promise<GroupTypeDetailRow[]> {
  const rows = await sql<GroupTypeDetailRow[]>`
    select group_type, group_type_index, name_singular, name_plural, default_columns, created_at
    from group_type_mappings where project_id = ${projectId} order by group_type_index`
  return [...rows]
}

/**
 * Changes what users named a group type and the columns its list shows (each absent field
 * stays); answers whether the project has the type.
 */
export async function updateGroupTypeMetadata(
  sql: Sql,
  projectId: number,
  groupTypeIndex: number,
  update: {
    name_singular?: string | null | undefined
    name_plural?: string | null | undefined
    default_columns?: string[] | null | undefined
  },
): Promise<boolean> {
  const columns = update.default_columns ? JSON.stringify(update.default_columns) : null
  const rows = await sql`
    update group_type_mappings set
      name_singular = case when ${update.name_singular !== undefined} then ${update.name_singular ?? null}::text else name_singular end,
      name_plural = case when ${update.name_plural !== undefined} then ${update.name_plural ?? null}::text else name_plural end,
      default_columns = case when ${update.default_columns !== undefined} then (${columns}::text)::jsonb else default_columns end
    where project_id = ${projectId} and group_type_index = ${groupTypeIndex}
    returning 1`
  return rows.length > 0
}

/** Forgets a group type (its groups stay, as PostHog keeps them); answers whether the project had it. */
export async function deleteGroupType(sql: Sql, projectId: number, groupTypeIndex: number): Promise<boolean> {
  const rows =
    await sql`delete from group_type_mappings where project_id = ${projectId} and group_type_index = ${groupTypeIndex} returning 1`
  return rows.length > 0
}
