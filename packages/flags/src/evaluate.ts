import { flagHash } from './hash'
import { matchProperty } from './properties'
import type {
  CohortProperties,
  EvaluationContext,
  FlagCondition,
  FlagDefinition,
  FlagEvaluation,
  FlagProperty,
  MatchReasonCode,
} from './types'

/** Which non-match reason is reported when several conditions fail (PostHog's priority). */
const REASON_PRIORITY: Record<MatchReasonCode, number> = {
  condition_match: 3,
  no_group_type: 2,
  out_of_rollout_bound: 1,
  no_condition_match: 0,
}

const DESCRIPTIONS: Record<Exclude<MatchReasonCode, 'condition_match'>, string> = {
  no_condition_match: 'No matching condition set',
  out_of_rollout_bound: 'Out of rollout bound',
  no_group_type: 'No group type',
}

/** The variant whose cumulative range holds the user's variant hash; null if none does. */
export function variantFor(flag: FlagDefinition, bucketingId: string): string | null {
  const variants = flag.filters.multivariate?.variants ?? []
  const h = flagHash(flag.key, bucketingId, 'variant')
  let start = 0
  for (const variant of variants) {
    const end = start + variant.rollout_percentage / 100
    if (h >= start && h < end) return variant.key
    start = end
  }
  return null
}

function conditionsOf(flag: FlagDefinition): FlagCondition[] {
  if (flag.filters.groups) return flag.filters.groups
  // Legacy flags: one condition from the top-level properties and rollout.
  return [{ properties: flag.filters.properties ?? [], rollout_percentage: flag.rollout_percentage ?? null }]
}

const isCohortGroup = (v: CohortProperties | FlagProperty): v is CohortProperties =>
  (v.type === 'AND' || v.type === 'OR') && Array.isArray((v as CohortProperties).values)

/** Whether the person belongs to a cohort: a static one by membership, a dynamic one by its conditions. */
function inCohort(id: unknown, ctx: EvaluationContext, properties: Record<string, unknown>, depth = 0): boolean {
  const cohortId = Number(id)
  if (ctx.staticCohorts?.has(cohortId)) return true
  const definition = ctx.cohorts?.[String(cohortId)]
  return definition !== undefined && depth < 10 && cohortMatches(definition, ctx, properties, depth + 1)
}

function cohortMatches(group: CohortProperties, ctx: EvaluationContext, properties: Record<string, unknown>, depth: number): boolean {
  const holds = (v: CohortProperties | FlagProperty): boolean => {
    if (isCohortGroup(v)) return cohortMatches(v, ctx, properties, depth)
    const matched = v.type === 'cohort' ? inCohort(v.value, ctx, properties, depth) : matchProperty(v, properties)
    return v.negation ? !matched : matched
  }
  return group.type === 'OR' ? group.values.some(holds) : group.values.every(holds)
}

function notMatched(flag: FlagDefinition, code: Exclude<MatchReasonCode, 'condition_match'>, index: number | null): FlagEvaluation {
  return {
    key: flag.key,
    enabled: false,
    variant: null,
    reason: { code, condition_index: index, description: DESCRIPTIONS[code] },
    payload: null,
  }
}

/**
 * A flag's value for one user, as PostHog computes it: conditions in their listed order, the
 * first whose properties all match and whose rollout includes the user's hash wins; a
 * multivariate flag then picks the condition's variant or the one the variant hash falls in.
 */
export function evaluateFlag(flag: FlagDefinition, ctx: EvaluationContext): FlagEvaluation {
  const groupIndex = flag.filters.aggregation_group_type_index
  let bucketingId: string
  let properties: Record<string, unknown>
  if (groupIndex !== undefined && groupIndex !== null) {
    const typeName = ctx.groupTypeNames?.[groupIndex]
    const groupKey = typeName === undefined ? undefined : ctx.groups?.[typeName]
    if (typeName === undefined || groupKey === undefined) return notMatched(flag, 'no_group_type', null)
    bucketingId = groupKey
    properties = { ...ctx.groupProperties?.[typeName], $group_key: groupKey }
  } else {
    bucketingId = (flag.ensure_experience_continuity && ctx.hashKeyOverrides?.[flag.key]) || ctx.distinctId
    properties = { distinct_id: ctx.distinctId, ...ctx.personProperties }
  }

  let best: { code: Exclude<MatchReasonCode, 'condition_match'>; index: number | null } = { code: 'no_condition_match', index: null }
  const conditions = conditionsOf(flag)
  for (const [index, condition] of conditions.entries()) {
    const matches = (condition.properties ?? []).every((property) => {
      const holds = property.type === 'cohort' ? inCohort(property.value, ctx, properties) : matchProperty(property, properties)
      return property.negation ? !holds : holds
    })
    if (!matches) continue
    const rollout = condition.rollout_percentage
    // A hash is never above 1: a full rollout needs no hash.
    if (rollout !== null && rollout !== undefined && rollout < 100 && flagHash(flag.key, bucketingId) > rollout / 100) {
      if (REASON_PRIORITY.out_of_rollout_bound > REASON_PRIORITY[best.code]) best = { code: 'out_of_rollout_bound', index }
      continue
    }
    const variants = flag.filters.multivariate?.variants ?? []
    const variant =
      condition.variant && variants.some((v) => v.key === condition.variant)
        ? condition.variant
        : variants.length > 0
          ? variantFor(flag, bucketingId)
          : null
    const payloads = flag.filters.payloads ?? {}
    return {
      key: flag.key,
      enabled: true,
      variant,
      reason: { code: 'condition_match', condition_index: index, description: `Matched condition set ${index + 1}` },
      payload: payloads[variant ?? 'true'] ?? null,
    }
  }
  return notMatched(flag, best.code, best.code === 'no_condition_match' && conditions.length > 0 ? null : best.index)
}
