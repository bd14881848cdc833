// A feature flag's `filters` as the console's form draws them, and back: PostHog's release
// conditions (`groups` of person-property conditions and a rollout percentage, optionally a
// variant override), its variants (`multivariate.variants`) and their payloads (`payloads`,
// keyed by variant key, or "true" for a flag without variants, each JSON text).
import { isNumeric, PERSON_OPERATORS, takesValue, type PersonOperator } from './personOperators'

export type FlagCondition =
  | { kind: 'person'; key: string; operator: PersonOperator; value: string }
  /** A condition the form does not draw (a cohort, another flag, a group property…), kept as it came. */
  | { kind: 'other'; raw: Record<string, unknown> }

export interface ReleaseGroup {
  conditions: FlagCondition[]
  /** The percentage of matching users, as typed. */
  rollout: string
  /** The variant every matching user gets, or '' for the split of the variants. */
  variant: string
  /** The group's other fields (a description…), saved back unchanged. */
  rest: Record<string, unknown>
}

export interface Variant {
  key: string
  name: string
  rollout: string
}

export interface FlagForm {
  groups: ReleaseGroup[]
  variants: Variant[]
  /** JSON text per variant key, or under "true" for a flag without variants. */
  payloads: Record<string, string>
  /** The filters' other fields (super groups, a group aggregation…), saved back unchanged. */
  rest: Record<string, unknown>
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

const scalar = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined

function conditionOf(raw: unknown): FlagCondition {
  const other: FlagCondition = { kind: 'other', raw: isObject(raw) ? raw : { value: raw } }
  if (!isObject(raw) || (raw.type !== undefined && raw.type !== 'person') || raw.negation === true) return other
  const operator = (raw.operator ?? 'exact') as PersonOperator
  if (typeof raw.key !== 'string' || !PERSON_OPERATORS.some(([op]) => op === operator)) return other
  if (!takesValue(operator)) return { kind: 'person', key: raw.key, operator, value: '' }
  // PostHog's own form sends an `exact` value as a list of one.
  const value = Array.isArray(raw.value) && raw.value.length === 1 ? scalar(raw.value[0]) : scalar(raw.value)
  return value === undefined ? other : { kind: 'person', key: raw.key, operator, value }
}

/** A payload as the form shows it: JSON text (PostHog keeps text; an object is written out). */
const payloadText = (payload: unknown): string => (typeof payload === 'string' ? payload : JSON.stringify(payload))

/** A flag's stored `filters` as the form's fields. */
export function formOf(filters: Record<string, unknown>): FlagForm {
  const { groups, multivariate, payloads, ...rest } = filters
  const variants = isObject(multivariate) && Array.isArray(multivariate.variants) ? multivariate.variants.filter(isObject) : []
  return {
    groups: (Array.isArray(groups) ? groups.filter(isObject) : []).map(({ properties, rollout_percentage, variant, ...other }) => ({
      conditions: (Array.isArray(properties) ? properties : []).map(conditionOf),
      rollout: String(typeof rollout_percentage === 'number' ? rollout_percentage : 100),
      variant: typeof variant === 'string' ? variant : '',
      rest: other,
    })),
    variants: variants.map((v) => ({
      key: scalar(v.key) ?? '',
      name: typeof v.name === 'string' ? v.name : '',
      rollout: String(typeof v.rollout_percentage === 'number' ? v.rollout_percentage : 0),
    })),
    payloads: Object.fromEntries(Object.entries(isObject(payloads) ? payloads : {}).map(([key, value]) => [key, payloadText(value)])),
    rest,
  }
}

function conditionFilter(condition: FlagCondition): Record<string, unknown> {
  if (condition.kind === 'other') return condition.raw
  const { operator } = condition
  const value = !takesValue(operator) ? operator : isNumeric(operator) ? Number(condition.value) : condition.value
  return { key: condition.key.trim(), type: 'person', operator, value }
}

/** The keys a payload may be given under: each variant's, or "true" for a flag without variants. */
export const payloadKeys = (form: FlagForm): string[] => (form.variants.length > 0 ? form.variants.map((v) => v.key) : ['true'])

/** The form's fields as PostHog's `filters`; payloads left empty are not sent. */
export function filtersOf(form: FlagForm): Record<string, unknown> {
  const keys = new Set(payloadKeys(form))
  const payloads = Object.fromEntries(Object.entries(form.payloads).filter(([key, text]) => keys.has(key) && text.trim() !== ''))
  return {
    ...form.rest,
    groups: form.groups.map((group) => ({
      ...group.rest,
      properties: group.conditions.map(conditionFilter),
      rollout_percentage: Number(group.rollout),
      ...(group.variant && form.variants.length > 0 ? { variant: group.variant } : { variant: null }),
    })),
    multivariate:
      form.variants.length > 0
        ? {
            variants: form.variants.map((v) => ({
              key: v.key.trim(),
              ...(v.name.trim() ? { name: v.name.trim() } : {}),
              rollout_percentage: Number(v.rollout),
            })),
          }
        : null,
    payloads,
  }
}

/**
 * What is wrong with the form before it is sent, each in words for the person editing it: the
 * variants' split must add up to 100, their keys be unique, and each payload be JSON.
 */
export function problemsOf(form: FlagForm): string[] {
  const problems: string[] = []
  if (form.variants.length > 0) {
    const total = form.variants.reduce((sum, v) => sum + (Number(v.rollout) || 0), 0)
    if (Math.abs(total - 100) > 1e-9) problems.push(`The variants' rollout percentages add up to ${round(total)}%, not 100%.`)
    const keys = form.variants.map((v) => v.key.trim())
    if (keys.some((key) => key === '')) problems.push('Every variant needs a key.')
    else if (new Set(keys).size !== keys.length) problems.push('Two variants have the same key.')
  }
  for (const key of payloadKeys(form)) {
    const text = form.payloads[key]?.trim()
    if (!text) continue
    try {
      JSON.parse(text)
    } catch {
      problems.push(`The payload of ${key === 'true' ? 'the flag' : `"${key}"`} is not valid JSON.`)
    }
  }
  return problems
}

const round = (n: number) => Math.round(n * 100) / 100

export const newGroup = (): ReleaseGroup => ({ conditions: [], rollout: '100', variant: '', rest: {} })
export const newPersonCondition = (): FlagCondition => ({ kind: 'person', key: '', operator: 'exact', value: '' })

/** Changes of the form's fields, each a new value (the form is controlled by its page). */
export const editFlag = {
  addGroup: (form: FlagForm): FlagForm => ({ ...form, groups: [...form.groups, newGroup()] }),
  removeGroup: (form: FlagForm, g: number): FlagForm => ({ ...form, groups: form.groups.filter((_, i) => i !== g) }),
  setGroup: (form: FlagForm, g: number, change: Partial<ReleaseGroup>): FlagForm => ({
    ...form,
    groups: form.groups.map((group, i) => (i === g ? { ...group, ...change } : group)),
  }),
  addCondition: (form: FlagForm, g: number): FlagForm =>
    editFlag.setGroup(form, g, { conditions: [...form.groups[g]!.conditions, newPersonCondition()] }),
  removeCondition: (form: FlagForm, g: number, c: number): FlagForm =>
    editFlag.setGroup(form, g, { conditions: form.groups[g]!.conditions.filter((_, i) => i !== c) }),
  setCondition: (form: FlagForm, g: number, c: number, next: FlagCondition): FlagForm =>
    editFlag.setGroup(form, g, { conditions: form.groups[g]!.conditions.map((cond, i) => (i === c ? next : cond)) }),
  /** A new variant; the first two of a flag split its users evenly. */
  addVariant: (form: FlagForm): FlagForm => {
    if (form.variants.length === 0)
      return {
        ...form,
        variants: [
          { key: 'control', name: '', rollout: '50' },
          { key: 'test', name: '', rollout: '50' },
        ],
      }
    return { ...form, variants: [...form.variants, { key: '', name: '', rollout: '0' }] }
  },
  removeVariant: (form: FlagForm, v: number): FlagForm => {
    const removed = form.variants[v]?.key
    return {
      ...form,
      variants: form.variants.filter((_, i) => i !== v),
      groups: form.groups.map((group) => (group.variant === removed ? { ...group, variant: '' } : group)),
    }
  },
  setVariant: (form: FlagForm, v: number, change: Partial<Variant>): FlagForm => {
    const before = form.variants[v]!
    const after = { ...before, ...change }
    // A renamed variant keeps its payload and the groups that override to it.
    const renamed = change.key !== undefined && change.key !== before.key
    const { [before.key]: payload, ...others } = form.payloads
    return {
      ...form,
      variants: form.variants.map((variant, i) => (i === v ? after : variant)),
      payloads: renamed && payload !== undefined ? { ...others, [after.key]: payload } : form.payloads,
      groups: renamed ? form.groups.map((g) => (g.variant === before.key ? { ...g, variant: after.key } : g)) : form.groups,
    }
  },
  setPayload: (form: FlagForm, key: string, text: string): FlagForm => ({ ...form, payloads: { ...form.payloads, [key]: text } }),
}
