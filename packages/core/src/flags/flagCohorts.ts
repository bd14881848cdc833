import type { CohortProperties, FlagDefinition, FlagProperty } from '@burrow/flags'
import { cohorts, type CohortRow, type Sql } from '@burrow/postgres'
import { readCohortDefinition, UnsupportedCohortDefinition, type CohortDefinitionBuilder } from '../cohorts/cohortDefinition'

/** Behaviour over events, which flags cannot evaluate. */
const notForFlags = (): never => {
  throw new UnsupportedCohortDefinition('Flags cannot evaluate conditions on events.')
}

/** The cohort's conditions in PostHog's local-evaluation form. */
const forFlags: CohortDefinitionBuilder<CohortProperties | FlagProperty> = {
  group: (type, values) => ({ type, values }),
  person: (item, negated) => ({
    key: String(item.key),
    value: item.value,
    operator: (item.operator as string | null | undefined) ?? 'exact',
    type: 'person',
    negation: negated,
  }),
  cohort: (id, negated) => ({ key: 'id', type: 'cohort', value: id, negation: negated }),
  behaviour: notForFlags,
  legacyEvent: notForFlags,
}

/** A cohort without conditions has no members, for flags as for its calculation. */
const NOBODY: CohortProperties = { type: 'OR', values: [] }

/**
 * A dynamic cohort's conditions as flags evaluate them (PostHog's local-evaluation form), or
 * undefined when they depend on behaviour, which flags cannot evaluate.
 */
export function cohortFlagProperties(row: Pick<CohortRow, 'filters' | 'groups'>): CohortProperties | undefined {
  try {
    const tree = readCohortDefinition(row, forFlags)
    if (!tree) return NOBODY
    return 'values' in tree ? tree : { type: 'AND', values: [tree] }
  } catch (err) {
    if (err instanceof UnsupportedCohortDefinition) return undefined
    throw err
  }
}

/** Whether the cohort's conditions include behaviour (PostHog refuses such cohorts in flags). */
export const hasBehaviour = (row: Pick<CohortRow, 'filters' | 'groups' | 'is_static'>) =>
  !row.is_static && cohortFlagProperties(row) === undefined

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
