import { isJsonObject } from '@burrow/contracts'
import type { CohortProperties, FlagDefinition, FlagProperty } from '@burrow/flags'
import { cohorts, type CohortRow, type Sql } from '@burrow/postgres'

/** A cohort condition that flags cannot evaluate (behaviour over events). */
class NotForFlags extends Error {}

function leaf(item: Record<string, unknown>): CohortProperties | FlagProperty {
  if (item.type === 'behavioral') throw new NotForFlags()
  if (item.type === 'cohort' || item.type === 'static-cohort' || item.type === 'precalculated-cohort') {
    return { key: 'id', type: 'cohort', value: Number(item.value), negation: item.negation === true }
  }
  return {
    key: String(item.key),
    value: item.value,
    operator: (item.operator as string | null | undefined) ?? 'exact',
    type: 'person',
    negation: item.negation === true,
  }
}

function group(node: unknown, depth: number): CohortProperties | FlagProperty {
  if (!isJsonObject(node) || depth > 10) throw new NotForFlags()
  if ((node.type === 'AND' || node.type === 'OR') && Array.isArray(node.values)) {
    return { type: node.type, values: node.values.map((v) => group(v, depth + 1)) }
  }
  return leaf(node)
}

/**
 * A dynamic cohort's conditions as flags evaluate them (PostHog's local-evaluation form), or
 * undefined when they depend on behaviour, which flags cannot evaluate.
 */
export function cohortFlagProperties(row: Pick<CohortRow, 'filters' | 'groups'>): CohortProperties | undefined {
  try {
    const root = isJsonObject(row.filters) ? row.filters.properties : undefined
    if (isJsonObject(root) && Array.isArray(root.values) && root.values.length > 0) {
      const tree = group(root, 0)
      return 'values' in tree ? tree : { type: 'AND', values: [tree] }
    }
    const groups = row.groups.filter(isJsonObject)
    if (groups.length === 0) return { type: 'AND', values: [] }
    return {
      type: 'OR',
      values: groups.map((g) => {
        if (g.event_id !== undefined || g.action_id !== undefined) throw new NotForFlags()
        const properties = Array.isArray(g.properties) ? g.properties.filter(isJsonObject) : []
        return { type: 'AND' as const, values: properties.map((p) => leaf({ type: 'person', ...p })) }
      }),
    }
  } catch (err) {
    if (err instanceof NotForFlags) return undefined
    throw err
  }
}

/** Whether the cohort's conditions include behaviour (PostHog refuses such cohorts in flags). */
export const hasBehaviour = (row: Pick<CohortRow, 'filters' | 'groups' | 'is_static'>) => !row.is_static && cohortFlagProperties(row) === undefined

function cohortIdsIn(values: ReadonlyArray<CohortProperties | FlagProperty>, into: Set<number>): void {
  for (const v of values) {
    if ('values' in v && Array.isArray(v.values)) cohortIdsIn(v.values, into)
    else if ((v as FlagProperty).type === 'cohort') into.add(Number((v as FlagProperty).value))
  }
}

export interface FlagCohorts {
  /** Dynamic cohorts by id, with the cohorts they name in turn. */
  dynamic: Record<string, CohortProperties>
  /** Static cohorts the flags name: membership is looked up per person. */
  staticIds: number[]
}

/** The cohorts the flags' conditions name, directly or through other cohorts. */
export async function cohortsOfFlags(sql: Sql, projectId: number, flags: readonly FlagDefinition[]): Promise<FlagCohorts> {
  const wanted = new Set<number>()
  for (const flag of flags) for (const condition of flag.filters.groups ?? []) cohortIdsIn(condition.properties ?? [], wanted)
  const result: FlagCohorts = { dynamic: {}, staticIds: [] }
  const seen = new Set<number>()
  let pending = [...wanted]
  while (pending.length > 0) {
    for (const id of pending) seen.add(id)
    const next = new Set<number>()
    for (const row of await cohorts.findCohorts(sql, projectId, pending)) {
      if (row.is_static) {
        result.staticIds.push(row.id)
        continue
      }
      const properties = cohortFlagProperties(row)
      if (!properties) continue
      result.dynamic[String(row.id)] = properties
      cohortIdsIn(properties.values, next)
    }
    pending = [...next].filter((id) => !seen.has(id))
  }
  return result
}
