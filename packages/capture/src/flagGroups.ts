import type { CoreDeps, ProjectFlags } from '@burrow/core'

/** A group a request names, with its type's index, and the properties stored for it. */
export interface StoredGroup {
  groupTypeIndex: number
  groupKey: string
  properties: Record<string, unknown>
}

/** Reads the stored properties of groups (PostgreSQL, through the main thread on a capture thread). */
export type FlagGroupsLoader = (projectId: number, groups: Array<{ groupTypeIndex: number; groupKey: string }>) => Promise<StoredGroup[]>

/**
 * The group properties flags are evaluated with: the stored ones overridden by those the request
 * sent, as PostHog merges them. The groups are read only when a group-aggregated flag with
 * property conditions is about one of the request's groups and the request did not send every
 * key it reads. A failure keeps the request's properties and is reported as an error of the answer.
 */
export async function groupPropertiesForFlags(
  load: FlagGroupsLoader | undefined,
  request: { projectId: number; project: ProjectFlags; groups: Record<string, string>; sent: Record<string, Record<string, unknown>> },
  log: CoreDeps['log'],
): Promise<{ groupProperties: Record<string, Record<string, unknown>>; failed: boolean }> {
  const { project, groups, sent } = request
  const wanted = new Map<number, string>()
  for (const flag of project.flags) {
    const index = flag.filters.aggregation_group_type_index
    if (index === undefined || index === null || wanted.has(index)) continue
    const type = project.groupTypeNames[index]
    if (type === undefined || groups[type] === undefined) continue
    const keys = (flag.filters.groups ?? []).flatMap((condition) =>
      (condition.properties ?? []).filter((p) => p.type !== 'cohort').map((p) => p.key),
    )
    if (keys.some((key) => !Object.hasOwn(sent[type] ?? {}, key))) wanted.set(index, groups[type])
  }
  if (!load || wanted.size === 0) return { groupProperties: sent, failed: false }
  try {
    const stored = await load(
      request.projectId,
      [...wanted].map(([groupTypeIndex, groupKey]) => ({ groupTypeIndex, groupKey })),
    )
    const merged: Record<string, Record<string, unknown>> = { ...sent }
    for (const group of stored) {
      const type = project.groupTypeNames[group.groupTypeIndex]
      if (type !== undefined && groups[type] === group.groupKey) merged[type] = { ...group.properties, ...sent[type] }
    }
    return { groupProperties: merged, failed: false }
  } catch (err) {
    log('decide: reading stored group properties failed', err)
    return { groupProperties: sent, failed: true }
  }
}
