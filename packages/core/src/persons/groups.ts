import { groups as groupsTable, toClickHouseDateTime } from '@burrow/clickhouse'
import { problems, type CursorPage, type FoundGroup, type Group, type GroupCreate, type GroupType } from '@burrow/contracts'
import { groups, groupTypes, type GroupRow } from '@burrow/postgres'
import { decodeGroupCursor, encodeGroupCursor } from './groupCursor'
import { flagsChanged } from '../flags/featureFlags'
import type { CoreDeps } from '../deps'

const toGroup = (row: GroupRow): Group => ({
  group_type_index: row.group_type_index,
  group_key: row.group_key,
  group_properties: row.group_properties,
  created_at: row.created_at.toISOString(),
})

/** A group type index from the query: required, and one of the five there can be. */
function typeIndexOf(value: string | undefined, requiredMessage = QUERY_PARAMETER_REQUIRED): number {
  if (value === undefined || value === '') throw problems.validation('group_type_index', requiredMessage)
  if (!/^[0-4]$/.test(value)) throw problems.validation('group_type_index', `"${value}" is not a valid group type index.`)
  return Number(value)
}

const QUERY_PARAMETER_REQUIRED = 'This query parameter is required.'

function requiredQuery(attr: string, value: string | undefined): string {
  if (value === undefined || value === '') throw problems.validation(attr, QUERY_PARAMETER_REQUIRED)
  return value
}

const LIST_NEEDS_TYPE =
  'You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.'

/** PostHog's groups list: pages of 100, newest first, whatever `limit` says. */
const GROUPS_PAGE_SIZE = 100

export async function listGroups(
  deps: CoreDeps,
  projectId: number,
  query: {
    group_type_index?: string | undefined
    group_key?: string | undefined
    search?: string | undefined
    cursor?: string | undefined
  },
): Promise<CursorPage<Group>> {
  const groupTypeIndex = typeIndexOf(query.group_type_index, LIST_NEEDS_TYPE)
  // DRF reads an empty cursor as none: the first page.
  const position = query.cursor ? decodeGroupCursor(query.cursor) : undefined
  // One row beyond the page says whether there is more in the direction of travel.
  const rows = await groups.listGroups(deps.sql, projectId, {
    groupTypeIndex,
    groupKey: query.group_key,
    search: query.search,
    limit: GROUPS_PAGE_SIZE + 1,
    ...(position ? { position } : {}),
  })
  const more = rows.length > GROUPS_PAGE_SIZE
  const page = position?.reverse ? rows.slice(-GROUPS_PAGE_SIZE) : rows.slice(0, GROUPS_PAGE_SIZE)
  const edge = (row: groups.GroupListRow | undefined, reverse: boolean) =>
    row ? encodeGroupCursor({ createdAtMicros: row.created_at_micros, groupKey: row.group_key, reverse }) : null
  if (!position) return { next_cursor: more ? edge(page.at(-1), false) : null, previous_cursor: null, results: page.map(toGroup) }
  // Beside a page that came from a cursor there is always the way back; an empty page turns back at the cursor itself.
  const back = (row: groups.GroupListRow | undefined, reverse: boolean) => edge(row, reverse) ?? encodeGroupCursor({ ...position, reverse })
  return position.reverse
    ? { next_cursor: back(page.at(-1), false), previous_cursor: more ? edge(page[0], true) : null, results: page.map(toGroup) }
    : { next_cursor: more ? edge(page.at(-1), false) : null, previous_cursor: back(page[0], true), results: page.map(toGroup) }
}

export async function findGroup(
  deps: CoreDeps,
  projectId: number,
  query: { group_type_index?: string | undefined; group_key?: string | undefined },
): Promise<FoundGroup> {
  return { ...toGroup(await groupOf(deps, projectId, query)), notebook: null }
}

/** The group the query names by type and key, or 404. */
async function groupOf(
  deps: CoreDeps,
  projectId: number,
  query: { group_type_index?: string | undefined; group_key?: string | undefined },
): Promise<GroupRow> {
  const groupTypeIndex = typeIndexOf(query.group_type_index)
  const row = await groups.findGroup(deps.sql, projectId, groupTypeIndex, requiredQuery('group_key', query.group_key))
  if (!row) throw problems.notFound()
  return row
}

/** A property key from a body: PostHog's bound on names of properties. */
const MAX_PROPERTY_KEY_LENGTH = 400

/** Sets one property of a group, as PostHog's `update_property`; the copy in ClickHouse follows. */
export async function updateGroupProperty(
  deps: CoreDeps,
  projectId: number,
  input: { group_type_index?: string | undefined; group_key?: string | undefined; key?: unknown; value?: unknown },
): Promise<Group> {
  const found = await groupOf(deps, projectId, input)
  const { key, value } = input
  if (key === undefined || key === null || key === '' || key === false || key === 0) {
    throw problems.validation('key', 'This field is required.')
  }
  if (typeof key !== 'string') throw problems.validation('key', 'Not a valid string.')
  if (key.length > MAX_PROPERTY_KEY_LENGTH) {
    throw problems.validation('key', `Ensure this field has no more than ${MAX_PROPERTY_KEY_LENGTH} characters.`, 'max_length')
  }
  if (value === undefined || value === null) throw problems.validation('value', 'This field is required.')
  return toGroup(await changeProperties(deps, projectId, found, (properties) => ({ ...properties, [key]: value })))
}

/** Removes one property of a group, named by `$unset`, as PostHog's `delete_property`. */
export async function deleteGroupProperty(
  deps: CoreDeps,
  projectId: number,
  input: { group_type_index?: string | undefined; group_key?: string | undefined; $unset?: unknown },
): Promise<Group> {
  const found = await groupOf(deps, projectId, input)
  const key = input.$unset
  if (typeof key !== 'string') {
    throw problems.validation('$unset', 'This field is required and must be a string (the property name to delete).')
  }
  if (!Object.hasOwn(found.group_properties, key)) {
    throw problems.validation('$unset', `Property '${key}' does not exist on this group.`)
  }
  return toGroup(
    await changeProperties(deps, projectId, found, (properties) =>
      Object.fromEntries(Object.entries(properties).filter(([k]) => k !== key)),
    ),
  )
}

async function changeProperties(
  deps: CoreDeps,
  projectId: number,
  found: GroupRow,
  change: (properties: Record<string, unknown>) => Record<string, unknown>,
): Promise<GroupRow> {
  const row = await groups.setGroupProperties(deps.sql, projectId, found.group_type_index, found.group_key, change)
  if (!row) throw problems.notFound()
  await copyToClickHouse(deps, projectId, row)
  return row
}

async function copyToClickHouse(deps: CoreDeps, projectId: number, row: GroupRow): Promise<void> {
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
): Promise<{ results: Array<{ name: string; count: number }>; refreshing: boolean }> {
  const groupTypeIndex = typeIndexOf(query.group_type_index)
  const results = await groupsTable.groupPropertyValues(deps.ch, {
    teamId: projectId,
    groupTypeIndex,
    key: requiredQuery('key', query.key),
    value: query.value,
  })
  return { results, refreshing: false }
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
  // PostHog raises this as a validation error on a field it calls `detail`.
  if (!row) throw problems.validation('detail', 'A group with this key already exists', 'invalid_input')
  await copyToClickHouse(deps, projectId, row)
  return toGroup(row)
}

/** Forgets a group type, as PostHog's group types destroy: its groups stay, and flags no longer resolve it. */
export async function deleteGroupType(deps: CoreDeps, projectId: number, groupTypeIndex: number): Promise<void> {
  if (!(await groupTypes.deleteGroupType(deps.sql, projectId, groupTypeIndex))) throw problems.notFound()
  await flagsChanged(deps, projectId)
}
