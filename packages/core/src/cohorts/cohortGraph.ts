import { isJsonObject, problems } from '@burrow/contracts'
import { cohorts, featureFlags, type CohortRow, type Sql } from '@burrow/postgres'
import { hasBehaviour } from '../flags/flagCohorts'

const COHORT_CONDITION_TYPES = new Set(['cohort', 'static-cohort', 'precalculated-cohort'])

/** Deeper than any definition the API accepts: the walk stops there rather than recurse without end. */
const MAX_DEPTH = 64

function collect(node: unknown, depth: number, into: Set<number>): void {
  if (depth > MAX_DEPTH) return
  if (Array.isArray(node)) {
    for (const item of node) collect(item, depth + 1, into)
    return
  }
  if (!isJsonObject(node)) return
  if (typeof node.type === 'string' && COHORT_CONDITION_TYPES.has(node.type)) {
    const id = Number(node.value)
    if (Number.isSafeInteger(id)) into.add(id)
    return
  }
  for (const value of Object.values(node)) collect(value, depth + 1, into)
}

/** The ids of the cohorts a definition (`filters` or legacy `groups`) names as conditions. */
export function cohortIdsNamed(definition: Pick<CohortRow, 'filters' | 'groups'>): number[] {
  const ids = new Set<number>()
  collect(definition.filters, 0, ids)
  collect(definition.groups, 0, ids)
  return [...ids]
}

/**
 * The project's cohorts reached from `start` through the cohorts each one names, as stored
 * (`override` stands in for a cohort whose new definition is not stored yet).
 */
async function reachable(
  sql: Sql,
  projectId: number,
  start: readonly number[],
  override?: Pick<CohortRow, 'id' | 'filters' | 'groups' | 'is_static' | 'name'>,
): Promise<Map<number, Pick<CohortRow, 'id' | 'filters' | 'groups' | 'is_static' | 'name' | 'deleted'>>> {
  const found = new Map<number, Pick<CohortRow, 'id' | 'filters' | 'groups' | 'is_static' | 'name' | 'deleted'>>()
  let pending = [...new Set(start)]
  while (pending.length > 0) {
    const rows = await cohorts.findCohorts(sql, projectId, pending)
    const next = new Set<number>()
    for (const stored of rows) {
      const row = override?.id === stored.id ? { ...stored, ...override } : stored
      found.set(row.id, row)
      for (const id of cohortIdsNamed(row)) if (!found.has(id)) next.add(id)
    }
    pending = [...next].filter((id) => !found.has(id))
  }
  return found
}

/** PostHog refuses a definition through which a cohort would name itself, directly or through others. */
export async function refuseLoops(sql: Sql, projectId: number, id: number, definition: Pick<CohortRow, 'filters' | 'groups'>) {
  const named = cohortIdsNamed(definition)
  if (named.includes(id) || (await reachable(sql, projectId, named)).has(id)) {
    throw problems.validation(null, 'Cohorts cannot reference other cohorts in a loop.')
  }
}

const behaviouralCohort = (cohort: Pick<CohortRow, 'id' | 'name'>) =>
  problems.validation(
    'filters',
    `Cohort '${cohort.name ?? cohort.id}' with filters on events cannot be used in feature flags.`,
    'behavioral_cohort_found',
  )

/**
 * A flag may name only cohorts flags can evaluate: a cohort with conditions on events, or one
 * naming such a cohort however deep, is refused as PostHog refuses it.
 */
export async function refuseBehaviouralCohorts(sql: Sql, projectId: number, ids: readonly number[]): Promise<void> {
  for (const cohort of (await reachable(sql, projectId, ids)).values()) {
    if (hasBehaviour(cohort)) throw behaviouralCohort(cohort)
  }
}

/**
 * A cohort that flags use, directly or through other cohorts, may not come to depend on
 * behaviour: the flags would turn false for everyone.
 */
export async function refuseBehaviourInFlagCohort(
  sql: Sql,
  projectId: number,
  cohort: Pick<CohortRow, 'id' | 'filters' | 'groups' | 'is_static' | 'name'>,
): Promise<void> {
  if (cohort.is_static) return
  const own = await reachable(sql, projectId, [cohort.id], cohort)
  const behavioural = [...own.values()].some((c) => !c.is_static && hasBehaviour(c))
  if (!behavioural) return
  const flags = await featureFlags.liveFeatureFlags(sql, projectId)
  const namedByFlags = new Set<number>()
  for (const flag of flags) collect(flag.filters, 0, namedByFlags)
  if (namedByFlags.size === 0) return
  if (namedByFlags.has(cohort.id) || (await reachable(sql, projectId, [...namedByFlags])).has(cohort.id)) {
    throw problems.validation('filters', 'Behavioral filters cannot be added to cohorts used in feature flags.', 'behavioral_cohort_found')
  }
}
