/** A condition on a property, as flag filters store it. */
export interface FlagProperty {
  key: string
  value?: unknown
  operator?: string | null
  /** person (default), group, cohort, or flag (the key is then the id of the flag it depends on). */
  type?: string
  group_type_index?: number | null
  negation?: boolean
}

export interface FlagCondition {
  properties?: FlagProperty[] | null
  rollout_percentage?: number | null
  /** A variant every user of this condition gets, instead of the computed one. */
  variant?: string | null
}

export interface FlagVariant {
  key: string
  name?: string | null
  rollout_percentage: number
}

export interface FlagFilters {
  groups?: FlagCondition[] | null
  /**
   * Early-access enrolment: one condition on `$feature_enrollment/<flag key>`. A person who has
   * that property gets the answer of this condition, whatever the groups say.
   */
  super_groups?: FlagCondition[] | null
  multivariate?: { variants: FlagVariant[] } | null
  /** Keyed by "true" or by variant key; values are usually JSON text. */
  payloads?: Record<string, unknown> | null
  aggregation_group_type_index?: number | null
  /** Legacy flags without groups. */
  properties?: FlagProperty[] | null
}

export interface FlagDefinition {
  id: number
  key: string
  filters: FlagFilters
  /** Legacy top-level rollout of flags without groups. */
  rollout_percentage?: number | null
  ensure_experience_continuity?: boolean
  version?: number
}

/**
 * A dynamic cohort as flags see it (PostHog's local-evaluation `cohorts` entries): AND/OR groups
 * of person property conditions and of other cohorts.
 */
export interface CohortProperties {
  type: 'AND' | 'OR'
  values: Array<CohortProperties | FlagProperty>
}

export interface EvaluationContext {
  distinctId: string
  /** Stored person properties overridden by the request's. */
  personProperties: Record<string, unknown>
  /** Group type name to group key, e.g. {company: "acme"}. */
  groups?: Record<string, string>
  groupProperties?: Record<string, Record<string, unknown>>
  /** Group type index to name, e.g. {0: "company"}. */
  groupTypeNames?: Record<number, string>
  /** Bucketing ids of experience-continuity flags by flag key (the anonymous id the user first had). */
  hashKeyOverrides?: Readonly<Record<string, string>>
  /** Definitions of the dynamic cohorts that flag conditions name, by cohort id. */
  cohorts?: Readonly<Record<string, CohortProperties>>
  /** The static cohorts the person belongs to. */
  staticCohorts?: ReadonlySet<number>
  /** The project's timezone, where dates without an offset are read. */
  timezone?: string
}

export type MatchReasonCode = 'condition_match' | 'no_condition_match' | 'out_of_rollout_bound' | 'no_group_type' | 'super_condition_value'

export interface FlagEvaluation {
  key: string
  enabled: boolean
  variant: string | null
  reason: { code: MatchReasonCode; condition_index: number | null; description: string }
  payload: unknown
}
