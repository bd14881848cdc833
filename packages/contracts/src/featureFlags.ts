import { z } from 'zod'
import { betweenBounds, isDateFilterValue, isSemverFilterValue, isValidPattern, SEMVER_OPERATORS, type SemverOperator } from '@burrow/flags'
import { drfBoolean, drfString } from './drf'
import { PROPERTY_OPERATORS } from './propertyFilters'
import { userSummarySchema } from './users'

const FLAG_OPERATORS = [
  ...PROPERTY_OPERATORS,
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
  'in',
  'not_in',
  'icontains_multi',
  'not_icontains_multi',
  'between',
  'not_between',
  'semver_eq',
  'semver_neq',
  'semver_gt',
  'semver_gte',
  'semver_lt',
  'semver_lte',
  'semver_tilde',
  'semver_caret',
  'semver_wildcard',
  'flag_evaluates_to',
] as const

const flagPropertySchema = z.looseObject({
  key: z.union([z.string().min(1), z.number()]).transform(String),
  value: z.unknown().optional(),
  operator: z
    .enum(FLAG_OPERATORS, { error: (issue) => `"${String(issue.input)}" is not a valid operator.` })
    .nullable()
    .optional(),
  type: z
    .enum(['person', 'cohort', 'group', 'flag'], { error: (issue) => `"${String(issue.input)}" is not a valid property type.` })
    .optional(),
  group_type_index: z.number().int().min(0).max(4).nullable().optional(),
  negation: z.boolean().optional(),
})

const flagConditionSchema = z.looseObject({
  properties: z.array(flagPropertySchema).max(1000).nullable().optional(),
  rollout_percentage: z.number().min(0).max(100).nullable().optional(),
  variant: z.string().nullable().optional(),
})

const flagVariantSchema = z.object({
  key: z.string().regex(/^[a-zA-Z0-9_-]+$/, 'Variant keys may only contain letters, numbers, hyphens and underscores.'),
  name: z.string().nullable().optional(),
  rollout_percentage: z.number().min(0).max(100),
})

const NUMERIC_OPERATORS = new Set(['gt', 'gte', 'lt', 'lte'])
const DATE_OPERATORS = new Set(['is_date_exact', 'is_date_before', 'is_date_after'])
/** Operators PostHog applies to text only, refusing other values with `invalid_value`. */
const TEXT_OPERATORS = new Set(['icontains', 'not_icontains', 'regex', 'not_regex'])

/** A flag's release conditions, checked as PostHog checks them (errors name `filters`). */
export const flagFiltersSchema = z
  .looseObject({
    groups: z.array(flagConditionSchema).optional(),
    super_groups: z.array(flagConditionSchema).max(1).nullable().optional(),
    multivariate: z
      .object({ variants: z.array(flagVariantSchema).min(1) })
      .nullable()
      .optional(),
    payloads: z.record(z.string(), z.unknown()).optional(),
    aggregation_group_type_index: z.number().int().min(0).max(4).nullable().optional(),
  })
  .superRefine((filters, ctx) => {
    const fail = (message: string, code?: string) =>
      ctx.addIssue({ code: 'custom', message, path: [], ...(code ? { params: { code } } : {}) })
    const variants = filters.multivariate?.variants ?? []
    if (variants.length > 0) {
      const total = variants.reduce((sum, v) => sum + v.rollout_percentage, 0)
      if (Math.abs(total - 100) > 1e-9) fail('Invalid variant definitions: Variant rollout percentages must sum to 100.')
      if (new Set(variants.map((v) => v.key)).size !== variants.length) fail('Invalid variant definitions: variant keys must be unique.')
    }
    const variantKeys = new Set(variants.map((v) => v.key))
    for (const condition of [...(filters.groups ?? []), ...(filters.super_groups ?? [])]) {
      if (condition.variant && !variantKeys.has(condition.variant))
        fail(`Filters are not valid (variant override "${condition.variant}" does not exist)`)
      for (const property of condition.properties ?? []) {
        const operator = property.operator ?? 'exact'
        if (TEXT_OPERATORS.has(operator) && typeof property.value !== 'string') {
          fail(`Invalid value for operator ${operator}: ${JSON.stringify(property.value) ?? 'undefined'}`, 'invalid_value')
        }
        if (NUMERIC_OPERATORS.has(operator) && !Number.isFinite(Number(property.value))) {
          fail(`The value of "${property.key}" must be a number for the "${operator}" operator.`)
        }
        // Relative dates of 10,000 units or more are no dates, as PostHog reads them.
        if (DATE_OPERATORS.has(operator) && !isDateFilterValue(property.value)) {
          fail(`The value of "${property.key}" is not a date.`)
        }
        if (SEMVER_OPERATORS.has(operator) && !isSemverFilterValue(operator as SemverOperator, property.value)) {
          fail(`The value of "${property.key}" is not a valid version for the "${operator}" operator.`)
        }
        if ((operator === 'between' || operator === 'not_between') && betweenBounds(property.value) === undefined) {
          fail(`The value of "${property.key}" must be a [min, max] pair of numbers with min <= max for the "${operator}" operator.`)
        }
        if ((property.type === 'flag') !== (operator === 'flag_evaluates_to')) {
          fail(`Flag dependencies use the "flag_evaluates_to" operator on properties of type "flag".`)
        } else if (property.type === 'flag' && typeof property.value !== 'boolean' && typeof property.value !== 'string') {
          fail(`The value of a flag dependency must be true, false or a variant key.`)
        }
        if ((operator === 'regex' || operator === 'not_regex') && !isValidPattern(String(property.value))) {
          fail(`The value of "${property.key}" is not a valid regular expression.`)
        }
        if (property.type === 'group' && filters.aggregation_group_type_index == null) fail('Group properties need a group aggregation.')
      }
    }
    for (const [key, payload] of Object.entries(filters.payloads ?? {})) {
      if (variants.length > 0 ? !variantKeys.has(key) : key !== 'true') fail(`Payload key "${key}" names no value of the flag.`)
      if (typeof payload === 'string' && !parses(payload)) fail(`The payload of "${key}" is not valid JSON.`)
    }
  })

function parses(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

export const featureFlagSchema = z.object({
  id: z.number().int(),
  key: z.string(),
  name: z.string(),
  filters: z.record(z.string(), z.unknown()),
  active: z.boolean(),
  deleted: z.boolean(),
  ensure_experience_continuity: z.boolean(),
  is_remote_configuration: z.boolean(),
  created_by: userSummarySchema.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  version: z.number().int(),
  is_simple_flag: z.boolean(),
  rollout_percentage: z.number().nullable(),
})
export type FeatureFlag = z.infer<typeof featureFlagSchema>

const featureFlagWritableSchema = z.object({
  key: z
    .string()
    .min(1)
    .max(400)
    .regex(/^[a-zA-Z0-9_-]+$/, { message: 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.' }),
  name: drfString(z.string().max(10_000)),
  filters: flagFiltersSchema,
  active: drfBoolean(),
  deleted: drfBoolean(),
  ensure_experience_continuity: drfBoolean(),
  is_remote_configuration: drfBoolean(),
})
export const featureFlagCreateSchema = featureFlagWritableSchema.partial().required({ key: true })
export const featureFlagUpdateSchema = featureFlagWritableSchema.partial()
export type FeatureFlagCreate = z.infer<typeof featureFlagCreateSchema>
export type FeatureFlagUpdate = z.infer<typeof featureFlagUpdateSchema>

/** PostHog's minimal flag fields, as other resources (early access features) show their flag. */
export const minimalFeatureFlagSchema = z.object({
  id: z.number().int(),
  team_id: z.number().int(),
  name: z.string(),
  key: z.string(),
  filters: z.record(z.string(), z.unknown()),
  deleted: z.boolean(),
  active: z.boolean(),
  ensure_experience_continuity: z.boolean(),
})

/** What posthog-node polls to evaluate flags itself. */
export const localEvaluationSchema = z.object({
  flags: z.array(minimalFeatureFlagSchema.extend({ has_encrypted_payloads: z.boolean(), version: z.number().int() })),
  group_type_mapping: z.record(z.string(), z.string()),
  cohorts: z.record(z.string(), z.unknown()),
})
export type LocalEvaluation = z.infer<typeof localEvaluationSchema>
