import type { FlagGroupsLoader } from '@burrow/capture'
import type { CoreDeps } from '@burrow/core'
import { groups } from '@burrow/postgres'

/** Reads the stored properties of the groups a flags request names. */
export function flagGroupsFrom(deps: CoreDeps): FlagGroupsLoader {
  return async (projectId, wanted) =>
    (await groups.groupPropertiesOf(deps.sql, projectId, wanted)).map((row) => ({
      groupTypeIndex: row.group_type_index,
      groupKey: row.group_key,
      properties: row.group_properties,
    }))
}
