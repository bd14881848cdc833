// A dynamic cohort's conditions as the console's editor draws them, and PostHog's
// `filters.properties` (nested AND/OR groups) that the service stores: groups of conditions,
// each a person property, an event performed within some days, or membership of another cohort.
import { isNumeric, PERSON_OPERATORS, takesValue, type PersonOperator } from './personOperators'

/** The periods a behavioural condition counts back over, as PostHog names them. */
export const TIME_INTERVALS = [
  ['day', 'days'],
  ['week', 'weeks'],
  ['month', 'months'],
] as const
export type TimeInterval = (typeof TIME_INTERVALS)[number][0]

export type Condition =
  | { kind: 'person'; key: string; operator: PersonOperator; value: string }
  | { kind: 'behavioral'; event: string; amount: string; interval: TimeInterval; negated: boolean }
  | { kind: 'cohort'; cohortId: string; negated: boolean }
  /** A condition the editor does not draw (a count of events, a deeper group…), kept as it came. */
  | { kind: 'other'; raw: Record<string, unknown> }

export type ConditionKind = Exclude<Condition['kind'], 'other'>

export const CONDITION_KINDS: readonly (readonly [ConditionKind, string])[] = [
  ['person', 'Person property'],
  ['behavioral', 'Performed event'],
  ['cohort', 'In cohort'],
]

export type Junction = 'AND' | 'OR'

export interface ConditionGroup {
  type: Junction
  conditions: Condition[]
}

/** The whole definition: groups joined by `type`, each of conditions joined by its own. */
export interface Criteria {
  type: Junction
  groups: ConditionGroup[]
}

export function newCondition(kind: ConditionKind): Condition {
  switch (kind) {
    case 'person':
      return { kind, key: '', operator: 'exact', value: '' }
    case 'behavioral':
      return { kind, event: '', amount: '30', interval: 'day', negated: false }
    case 'cohort':
      return { kind, cohortId: '', negated: false }
  }
}

/** A new cohort's definition: one group with one person-property condition to fill in. */
export const newCriteria = (): Criteria => ({ type: 'OR', groups: [{ type: 'AND', conditions: [newCondition('person')] }] })

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

const isJunction = (value: unknown): value is Junction => value === 'AND' || value === 'OR'

const isGroup = (value: unknown): value is { type: Junction; values: unknown[] } =>
  isObject(value) && isJunction(value.type) && Array.isArray(value.values)

const scalar = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined

function personCondition(raw: Record<string, unknown>): Condition | undefined {
  const operator = (raw.operator ?? 'exact') as PersonOperator
  if (typeof raw.key !== 'string' || raw.negation === true || !PERSON_OPERATORS.some(([op]) => op === operator)) return undefined
  if (!takesValue(operator)) return { kind: 'person', key: raw.key, operator, value: '' }
  // PostHog's own form sends an `exact` value as a list of one.
  const value = Array.isArray(raw.value) && raw.value.length === 1 ? scalar(raw.value[0]) : scalar(raw.value)
  return value === undefined ? undefined : { kind: 'person', key: raw.key, operator, value }
}

function behaviouralCondition(raw: Record<string, unknown>): Condition | undefined {
  const interval = (raw.time_interval ?? 'day') as TimeInterval
  const amount = scalar(raw.time_value ?? 30)
  if (raw.value !== 'performed_event' || (raw.event_type !== undefined && raw.event_type !== 'events')) return undefined
  if (typeof raw.key !== 'string' || amount === undefined || !TIME_INTERVALS.some(([i]) => i === interval)) return undefined
  return { kind: 'behavioral', event: raw.key, amount, interval, negated: raw.negation === true }
}

function conditionOf(raw: unknown): Condition {
  const other: Condition = { kind: 'other', raw: isObject(raw) ? raw : { value: raw } }
  if (!isObject(raw)) return other
  if (raw.type === 'person') return personCondition(raw) ?? other
  if (raw.type === 'behavioral') return behaviouralCondition(raw) ?? other
  if (raw.type === 'cohort') {
    const id = scalar(raw.value)
    return id === undefined ? other : { kind: 'cohort', cohortId: id, negated: raw.negation === true }
  }
  return other
}

/**
 * A cohort's `filters` as the editor's groups. A condition directly under the root becomes a
 * group of its own (the same persons match); anything nested deeper, or of a kind the editor does
 * not draw, is kept unchanged as an `other` condition, so saving never loses it.
 */
export function criteriaOf(filters: Record<string, unknown> | null | undefined): Criteria {
  const root = filters?.properties
  if (!isGroup(root)) return { type: 'OR', groups: [] }
  return {
    type: root.type,
    groups: root.values.map((value) =>
      isGroup(value) ? { type: value.type, conditions: value.values.map(conditionOf) } : { type: 'AND', conditions: [conditionOf(value)] },
    ),
  }
}

function conditionFilter(condition: Condition): Record<string, unknown> {
  switch (condition.kind) {
    case 'person': {
      const { key, operator } = condition
      const value = !takesValue(operator) ? operator : isNumeric(operator) ? Number(condition.value) : condition.value
      return { type: 'person', key: key.trim(), operator, value }
    }
    case 'behavioral':
      return {
        type: 'behavioral',
        key: condition.event.trim(),
        value: 'performed_event',
        event_type: 'events',
        time_value: Number(condition.amount),
        time_interval: condition.interval,
        negation: condition.negated,
      }
    case 'cohort':
      return { type: 'cohort', key: 'id', value: Number(condition.cohortId), negation: condition.negated }
    case 'other':
      return condition.raw
  }
}

/** The editor's groups as PostHog's `filters` of a dynamic cohort. */
export function filtersOf(criteria: Criteria): { properties: Record<string, unknown> } {
  return {
    properties: {
      type: criteria.type,
      values: criteria.groups.map((group) => ({ type: group.type, values: group.conditions.map(conditionFilter) })),
    },
  }
}

/** Changes of the editor's groups, each a new value (the editor is controlled by its page). */
export const edit = {
  setType: (criteria: Criteria, type: Junction): Criteria => ({ ...criteria, type }),
  addGroup: (criteria: Criteria): Criteria => ({
    ...criteria,
    groups: [...criteria.groups, { type: 'AND', conditions: [newCondition('person')] }],
  }),
  removeGroup: (criteria: Criteria, group: number): Criteria => ({ ...criteria, groups: criteria.groups.filter((_, i) => i !== group) }),
  setGroupType: (criteria: Criteria, group: number, type: Junction): Criteria => withGroup(criteria, group, (g) => ({ ...g, type })),
  addCondition: (criteria: Criteria, group: number, kind: ConditionKind = 'person'): Criteria =>
    withGroup(criteria, group, (g) => ({ ...g, conditions: [...g.conditions, newCondition(kind)] })),
  removeCondition: (criteria: Criteria, group: number, condition: number): Criteria =>
    withGroup(criteria, group, (g) => ({ ...g, conditions: g.conditions.filter((_, i) => i !== condition) })),
  setCondition: (criteria: Criteria, group: number, condition: number, next: Condition): Criteria =>
    withGroup(criteria, group, (g) => ({ ...g, conditions: g.conditions.map((c, i) => (i === condition ? next : c)) })),
}

function withGroup(criteria: Criteria, index: number, change: (group: ConditionGroup) => ConditionGroup): Criteria {
  return { ...criteria, groups: criteria.groups.map((g, i) => (i === index ? change(g) : g)) }
}
