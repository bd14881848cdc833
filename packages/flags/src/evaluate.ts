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
  super_condition_value: 4,
  condition_match: 3,
  no_group_type: 2,
  out_of_rollout_bound: 1,
  no_condition_match: 0,
}

const DESCRIPTIONS: Record<Exclude<MatchReasonCode, 'condition_match' | 'super_condition_value'>, string> = {
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

/**
 * Cohort answers already known for one set of properties (a request's person or group), by
 * definition: a cohort named k times, or naming itself, is evaluated once, so the work of a
 * request grows with the size of its cohorts' definitions and never exponentially. A cohort
 * met again while it is being evaluated (a cycle, refused when saved but possible in old data)
 * is `PENDING` and holds for nobody.
 */
const PENDING = 'pending'
const cohortAnswers = new WeakMap<Record<string, unknown>, Map<CohortProperties, boolean | typeof PENDING>>()

/** Cohorts within cohorts, past which a cohort holds for nobody. */
const MAX_COHORT_DEPTH = 10

/** Whether the person belongs to a cohort: a static one by membership, a dynamic one by its conditions. */
function inCohort(id: unknown, ctx: EvaluationContext, properties: Record<string, unknown>, depth = 0): boolean {
  const cohortId = Number(id)
  if (ctx.staticCohorts?.has(cohortId)) return true
  const definition = ctx.cohorts?.[String(cohortId)]
  if (definition === undefined || depth >= MAX_COHORT_DEPTH) return false
  let answers = cohortAnswers.get(properties)
  if (answers === undefined) {
    answers = new Map()
    cohortAnswers.set(properties, answers)
  }
  const known = answers.get(definition)
  if (known !== undefined) return known === true
  answers.set(definition, PENDING)
  const member = cohortMatches(definition, ctx, properties, depth + 1)
  answers.set(definition, member)
  return member
}

function cohortMatches(group: CohortProperties, ctx: EvaluationContext, properties: Record<string, unknown>, depth: number): boolean {
  const holds = (v: CohortProperties | FlagProperty): boolean => {
    if (isCohortGroup(v)) return cohortMatches(v, ctx, properties, depth)
    const matched =
      v.type === 'cohort' ? inCohort(v.value, ctx, properties, depth) : matchProperty(v, properties, { timezone: ctx.timezone })
    return v.negation ? !matched : matched
  }
  return group.type === 'OR' ? group.values.some(holds) : group.values.every(holds)
}

/** The answer of another flag, by id, for `flag_evaluates_to` conditions; undefined when it has none. */
type DependencyAnswer = (flagId: string) => FlagEvaluation | undefined

/**
 * A `flag_evaluates_to` condition: `true` holds when the flag is on (any variant), `false` when
 * it is off, a text when the flag is on with that variant. A flag that is missing, inactive or
 * part of a cycle satisfies none.
 */
function dependencyHolds(property: FlagProperty, answer: DependencyAnswer): boolean {
  const result = answer(String(property.key))
  if (result === undefined) return false
  if (property.value === true) return result.enabled
  if (property.value === false) return !result.enabled
  return typeof property.value === 'string' && result.enabled && result.variant === property.value
}

interface Subject {
  ctx: EvaluationContext
  properties: Record<string, unknown>
  bucketingId: string
  dependency: DependencyAnswer
}

function propertyHolds(property: FlagProperty, subject: Subject): boolean {
  const { ctx, properties } = subject
  const holds =
    property.type === 'cohort'
      ? inCohort(property.value, ctx, properties)
      : property.type === 'flag'
        ? dependencyHolds(property, subject.dependency)
        : matchProperty(property, properties, { timezone: ctx.timezone })
  return property.negation ? !holds : holds
}

/** A condition's outcome for the subject: its properties, then its rollout. */
function conditionOutcome(flag: FlagDefinition, condition: FlagCondition, subject: Subject): 'match' | 'no_match' | 'out_of_rollout' {
  if (!(condition.properties ?? []).every((property) => propertyHolds(property, subject))) return 'no_match'
  const rollout = condition.rollout_percentage
  // A hash is never above 1: a full rollout needs no hash.
  if (rollout !== null && rollout !== undefined && rollout < 100 && flagHash(flag.key, subject.bucketingId) > rollout / 100) {
    return 'out_of_rollout'
  }
  return 'match'
}

function notMatched(
  flag: FlagDefinition,
  code: Exclude<MatchReasonCode, 'condition_match' | 'super_condition_value'>,
  index: number | null,
): FlagEvaluation {
  return {
    key: flag.key,
    enabled: false,
    variant: null,
    reason: { code, condition_index: index, description: DESCRIPTIONS[code] },
    payload: null,
  }
}

/**
 * The early-access enrolment answer, when the person has the property the super condition names
 * (`$feature_enrollment/<key>`): it decides before any other condition, on or off.
 */
function superConditionAnswer(flag: FlagDefinition, subject: Subject): FlagEvaluation | undefined {
  const condition = flag.filters.super_groups?.[0]
  const key = condition?.properties?.[0]?.key
  if (condition === undefined || key === undefined || !Object.hasOwn(subject.properties, key)) return undefined
  const enabled = conditionOutcome(flag, condition, subject) === 'match'
  return {
    key: flag.key,
    enabled,
    variant: null,
    reason: { code: 'super_condition_value', condition_index: 0, description: 'Super condition value' },
    payload: enabled ? (flag.filters.payloads?.true ?? null) : null,
  }
}

/**
 * A flag's value for one user, as PostHog computes it: the early-access enrolment first, then
 * conditions in their listed order, the first whose properties all match and whose rollout
 * includes the user's hash wins; a multivariate flag then picks the condition's variant or the
 * one the variant hash falls in. `dependency` answers the flags that conditions depend on.
 */
export function evaluateFlag(flag: FlagDefinition, ctx: EvaluationContext, dependency: DependencyAnswer = () => undefined): FlagEvaluation {
  const groupIndex = flag.filters.aggregation_group_type_index
  let subject: Subject
  if (groupIndex !== undefined && groupIndex !== null) {
    const typeName = ctx.groupTypeNames?.[groupIndex]
    const groupKey = typeName === undefined ? undefined : ctx.groups?.[typeName]
    if (typeName === undefined || groupKey === undefined) return notMatched(flag, 'no_group_type', null)
    subject = { ctx, dependency, bucketingId: groupKey, properties: { ...ctx.groupProperties?.[typeName], $group_key: groupKey } }
  } else {
    subject = {
      ctx,
      dependency,
      bucketingId: (flag.ensure_experience_continuity && ctx.hashKeyOverrides?.[flag.key]) || ctx.distinctId,
      properties: { distinct_id: ctx.distinctId, ...ctx.personProperties },
    }
    const enrolment = superConditionAnswer(flag, subject)
    if (enrolment) return enrolment
  }

  let best: { code: 'no_condition_match' | 'out_of_rollout_bound'; index: number | null } = { code: 'no_condition_match', index: null }
  const conditions = conditionsOf(flag)
  for (const [index, condition] of conditions.entries()) {
    const outcome = conditionOutcome(flag, condition, subject)
    if (outcome === 'no_match') continue
    if (outcome === 'out_of_rollout') {
      if (REASON_PRIORITY.out_of_rollout_bound > REASON_PRIORITY[best.code]) best = { code: 'out_of_rollout_bound', index }
      continue
    }
    const variants = flag.filters.multivariate?.variants ?? []
    const variant =
      condition.variant && variants.some((v) => v.key === condition.variant)
        ? condition.variant
        : variants.length > 0
          ? variantFor(flag, subject.bucketingId)
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

/**
 * The values of `wanted` (all flags when absent), evaluating the flags they depend on
 * (`flag_evaluates_to`) once each, among `flags`. A flag met again while its own evaluation is
 * under way (a cycle saved before it could be refused) counts as having no answer.
 */
export function evaluateFlags(
  flags: readonly FlagDefinition[],
  ctx: EvaluationContext,
  wanted: readonly FlagDefinition[] = flags,
): Array<{ flag: FlagDefinition; result: FlagEvaluation }> {
  const byId = new Map(flags.map((flag) => [String(flag.id), flag]))
  const answers = new Map<FlagDefinition, FlagEvaluation | undefined>()
  const answer = (flag: FlagDefinition): FlagEvaluation | undefined => {
    if (answers.has(flag)) return answers.get(flag)
    answers.set(flag, undefined)
    const result = evaluateFlag(flag, ctx, (id) => {
      const dependency = byId.get(id)
      return dependency === undefined ? undefined : answer(dependency)
    })
    answers.set(flag, result)
    return result
  }
  return wanted.map((flag) => ({ flag, result: answer(flag)! }))
}
