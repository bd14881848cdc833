import type { ClickHouse } from '../connect'

/** A row of `groups`: the highest version of a (team, type index, key) is the group. */
export interface GroupCopy {
  team_id: number
  group_type_index: number
  group_key: string
  /** JSON text of the properties object. */
  group_properties: string
  /** DateTime64(6) text. */
  created_at: string
  version: number
}

export async function insertGroups(ch: ClickHouse, rows: readonly GroupCopy[]): Promise<void> {
  if (rows.length === 0) return
  await ch.insertEncoded('groups', 'JSONEachRow', Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n')))
}

const CURRENT_GROUPS = `SELECT group_type_index, group_key, argMax(group_properties, version) AS group_properties
  FROM groups WHERE team_id = {team_id:Int64} GROUP BY group_type_index, group_key`

/**
 * Each group type's property keys with how many groups have them, most common first, as
 * PostHog's `property_definitions` of groups answers.
 */
export async function groupPropertyDefinitions(
  ch: ClickHouse,
  teamId: number,
): Promise<Array<{ group_type_index: number; key: string; count: number }>> {
  const result = await ch.reader.query({
    query: `SELECT group_type_index, tupleElement(kv, 1) AS key, count() AS count
      FROM (${CURRENT_GROUPS}) ARRAY JOIN JSONExtractKeysAndValuesRaw(group_properties) AS kv
      GROUP BY group_type_index, key ORDER BY group_type_index ASC, count DESC, key ASC`,
    query_params: { team_id: teamId },
    format: 'JSONEachRow',
  })
  const rows = await result.json<{ group_type_index: number; key: string; count: string | number }>()
  return rows.map((r) => ({ group_type_index: Number(r.group_type_index), key: r.key, count: Number(r.count) }))
}

/** The 20 most common values of a group property, with a contains filter, as PostHog's `property_values`. */
export async function groupPropertyValues(
  ch: ClickHouse,
  q: { teamId: number; groupTypeIndex: number; key: string; value?: string | undefined },
): Promise<Array<{ name: string; count: number }>> {
  const result = await ch.reader.query({
    query: `SELECT if(JSONType(raw) = 'String', JSONExtractString(raw), raw) AS name, count() AS count
      FROM (SELECT JSONExtractRaw(group_properties, {key:String}) AS raw FROM (${CURRENT_GROUPS})
        WHERE group_type_index = {type_index:UInt8} AND JSONHas(group_properties, {key:String}))
      WHERE {value:String} = '' OR positionCaseInsensitiveUTF8(name, {value:String}) > 0
      GROUP BY name ORDER BY count DESC, name ASC LIMIT 20`,
    query_params: { team_id: q.teamId, type_index: q.groupTypeIndex, key: q.key, value: q.value ?? '' },
    format: 'JSONEachRow',
  })
  const rows = await result.json<{ name: string; count: string | number }>()
  return rows.map((r) => ({ name: r.name, count: Number(r.count) }))
}
