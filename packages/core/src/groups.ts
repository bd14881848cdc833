import { groups as groupsTable, toClickHouseDateTime } from '@burrow/clickhouse'
import { problems, type Group, type GroupCreate, type GroupType, type Page, type PageQuery } from '@burrow/contracts'
import { groups, groupTypes, type GroupRow } from '@burrow/postgres'
import type { CoreDeps } from './deps'

const toGroup = (row: GroupRow): Group => ({
  group_type_index: row.group_type_index,
  group_key: row.group_key,
  group_properties: row.group_properties,
  created_at: row.created_at.toISOString(),
})

/** A group type index from the query: required, and one of the five there can be. */
function typeIndexOf(value: string | undefined, requiredMessage: string): number {
  if (value === undefined || value === '') throw problems.validation('group_type_index', requiredMessage)
  if (!/^[0-4]$/.test(value)) throw problems.validation('group_type_index', `"${value}" is not a valid group type index.`)
  return Number(value)
}

function required(attr: string, value: string | undefined): string {
  if (value === undefined) throw problems.validation(attr, 'This field is required.', 'required')
  return value
}

const LIST_NEEDS_TYPE =
  'You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.'

export async function listGroups(
  deps: CoreDeps,
  projectId: number,
  query: PageQuery & { group_type_index?: string | undefined; group_key?: string | undefined; search?: string | undefined },
): Promise<Page<Group>> {
  const groupTypeIndex = typeIndexOf(query.group_type_index, LIST_NEEDS_TYPE)
  const { count, rows } = await groups.listGroups(deps.sql, projectId, {
    groupTypeIndex,
    groupKey: query.group_key,
    search: query.search,
    limit: query.limit,
    offset: query.offset,
  })
  return { count, limit: query.limit, offset: query.offset, results: rows.map(toGroup) }
}

export async function findGroup(
  deps: CoreDeps,
  projectId: number,
  query: { group_type_index?: string | undefined; group_key?: string | undefined },
): Promise<Group> {
  const groupTypeIndex = typeIndexOf(query.group_type_index, 'This field is required.')
  const row = await groups.findGroup(deps.sql, projectId, groupTypeIndex, required('group_key', query.group_key))
  if (!row) throw problems.notFound()
  return toGroup(row)
}

/** Each group type's property keys, most common first, from the groups copied to ClickHouse. */
export async function groupPropertyDefinitions(
  deps: CoreDeps,
  projectId: number,
): Promise<Record<string, Array<{ name: string; count: number }>>> {
  const definitions: Record<string, Array<{ name: string; count: number }>> = {}
  for (const row of await groupsTable.groupPropertyDefinitions(deps.ch, projectId)) {
    ;(definitions[String(row.group_type_index)] ??= []).push({ name: row.key, count: row.count })
  }
  return definitions
}

export async function groupPropertyValues(
  deps: CoreDeps,
  projectId: number,
  query: { group_type_index?: string | undefined; key?: string | undefined; value?: string | undefined },
): Promise<Array<{ name: string; count: number }>> {
  const groupTypeIndex = typeIndexOf(query.group_type_index, 'This field is required.')
  return groupsTable.groupPropertyValues(deps.ch, {
    teamId: projectId,
    groupTypeIndex,
    key: required('key', query.key),
    value: query.value,
  })
}

export async function listGroupTypes(deps: CoreDeps, projectId: number): Promise<GroupType[]> {
  return (await groupTypes.listGroupTypes(deps.sql, projectId)).map((row) => ({
    group_type: row.group_type,
    group_type_index: row.group_type_index,
    name_singular: row.name_singular,
    name_plural: row.name_plural,
    detail_dashboard: null,
    default_columns: row.default_columns,
    created_at: row.created_at?.toISOString() ?? null,
  }))
}

/** Names group types, as PostHog's `update_metadata`; answers every group type of the project. */
export async function updateGroupTypesMetadata(
  deps: CoreDeps,
  projectId: number,
  updates: ReadonlyArray<{ group_type_index: number; name_singular?: string | null | undefined; name_plural?: string | null | undefined }>,
): Promise<GroupType[]> {
  for (const update of updates) {
    const { group_type_index: index, name_singular, name_plural } = update
    if (!(await groupTypes.updateGroupTypeMetadata(deps.sql, projectId, index, { name_singular, name_plural }))) throw problems.notFound()
  }
  return listGroupTypes(deps, projectId)
}

/** Sets the property columns a group type's list shows; answers the group type. */
export async function setGroupTypeDefaultColumns(
  deps: CoreDeps,
  projectId: number,
  input: { group_type_index: number; default_columns: string[] | null },
): Promise<GroupType> {
  const found = await groupTypes.updateGroupTypeMetadata(deps.sql, projectId, input.group_type_index, {
    default_columns: input.default_columns,
  })
  if (!found) throw problems.notFound('Group type not found')
  const type = (await listGroupTypes(deps, projectId)).find((t) => t.group_type_index === input.group_type_index)
  if (!type) throw problems.notFound('Group type not found')
  return type
}

/** Creates a group of a registered type, in PostgreSQL and its copy in ClickHouse, as PostHog's API does. */
export async function createGroup(deps: CoreDeps, projectId: number, input: GroupCreate): Promise<Group> {
  const types = await groupTypes.groupTypeMapping(deps.sql, projectId)
  if (!types.some((t) => t.group_type_index === input.group_type_index)) throw problems.notFound()
  const row = await groups.insertGroup(deps.sql, projectId, {
    groupTypeIndex: input.group_type_index,
    groupKey: input.group_key,
    properties: input.group_properties,
  })
  if (!row) throw problems.validation(null, 'A group with this key already exists', 'invalid_input')
  await groupsTable.insertGroups(deps.ch, [
    {
      team_id: projectId,
      group_type_index: row.group_type_index,
      group_key: row.group_key,
      group_properties: JSON.stringify(row.group_properties),
      created_at: toClickHouseDateTime(row.created_at.getTime()),
      version: row.version,
    },
  ])
  return toGroup(row)
}
