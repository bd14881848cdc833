import type { BehaviouralCondition, PropertyExpression } from '@burrow/clickhouse'
import { isJsonObject } from '@burrow/contracts'
import { cohorts, type CohortRow, type Sql } from '@burrow/postgres'
import { propertyCondition } from '../events/propertyFilters'

/** A definition the calculation cannot run; the message is what `errors_calculating` counts. */
export class UnsupportedCohortDefinition extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UnsupportedCohortDefinition'
  }
}

const DAYS_PER = { day: 1, week: 7, month: 30, year: 365 } as const

/** A cohort condition that names another cohort's members; their version is looked up later. */
type Pending = { type: 'cohort'; cohortId: number; version: number; negated: boolean }

function behaviour(item: Record<string, unknown>): BehaviouralCondition {
  const event = typeof item.key === 'string' || typeof item.key === 'number' ? String(item.key) : ''
  const unit = (item.time_interval ?? 'day') as keyof typeof DAYS_PER
  const amount = Number(item.time_value ?? 30)
  if (!DAYS_PER[unit] || !Number.isFinite(amount) || amount <= 0) {
    throw new UnsupportedCohortDefinition(`"${String(item.time_value)} ${String(item.time_interval)}" is not a time window.`)
  }
  const days = Math.ceil(amount * DAYS_PER[unit])
  const negated = item.negation === true
  if (item.value === 'performed_event') return { type: 'behavioral', event, days, count: { operator: 'gte', value: 1 }, negated }
  if (item.value === 'performed_event_multiple') {
    const operator = item.operator === 'lte' ? 'lte' : item.operator === 'exact' || item.operator === 'eq' ? 'eq' : 'gte'
    const value = Number(item.operator_value ?? 1)
    if (!Number.isInteger(value) || value < 0)
      throw new UnsupportedCohortDefinition(`"${String(item.operator_value)}" is not a number of times.`)
    return { type: 'behavioral', event, days, count: { operator, value }, negated }
  }
  throw new UnsupportedCohortDefinition(
    `Behavioural conditions "${String(item.value)}" are not supported; use performed_event or performed_event_multiple.`,
  )
}

/**
 * How a reader of cohorts builds its own form (ClickHouse calculation, flag evaluation) from a
 * cohort's stored conditions, which readCohortDefinition walks for both.
 */
export interface CohortDefinitionBuilder<T> {
  group(type: 'AND' | 'OR', values: T[]): T
  person(item: Record<string, unknown>, negated: boolean): T
  cohort(id: number, negated: boolean): T
  /** A `behavioral` condition of `filters`. */
  behaviour(item: Record<string, unknown>): T
  /** A legacy `groups` entry naming an event performed within some days. */
  legacyEvent(group: Record<string, unknown>): T
}

function readLeaf<T>(item: Record<string, unknown>, build: CohortDefinitionBuilder<T>): T {
  const negated = item.negation === true
  switch (item.type) {
    case 'behavioral':
      return build.behaviour(item)
    case 'cohort':
    case 'static-cohort':
    case 'precalculated-cohort': {
      const id = Number(item.value)
      if (!Number.isInteger(id)) throw new UnsupportedCohortDefinition(`"${String(item.value)}" is not a cohort id.`)
      return build.cohort(id, negated)
    }
    default:
      return build.person(item, negated)
  }
}

function readTree<T>(node: unknown, depth: number, build: CohortDefinitionBuilder<T>): T {
  if (depth > 10) throw new UnsupportedCohortDefinition('The cohort filters are nested too deeply.')
  if (!isJsonObject(node)) throw new UnsupportedCohortDefinition('Each cohort condition must be an object.')
  if ((node.type === 'AND' || node.type === 'OR') && Array.isArray(node.values)) {
    return build.group(
      node.type,
      node.values.map((v) => readTree(v, depth + 1, build)),
    )
  }
  return readLeaf(node, build)
}

/**
 * A cohort's conditions in a reader's form: `filters.properties` (nested AND/OR groups) or else
 * the legacy `groups` (OR of property lists or events). Undefined for a cohort without conditions,
 * which has no members. What the definition cannot express throws UnsupportedCohortDefinition.
 */
export function readCohortDefinition<T>(row: Pick<CohortRow, 'filters' | 'groups'>, build: CohortDefinitionBuilder<T>): T | undefined {
  const root = isJsonObject(row.filters) ? row.filters.properties : undefined
  if (isJsonObject(root) && Array.isArray(root.values) && root.values.length > 0) return readTree(root, 0, build)
  const groups = row.groups.filter(isJsonObject)
  if (groups.length === 0) return undefined
  return build.group(
    'OR',
    groups.map((group) => {
      if (group.action_id !== undefined) throw new UnsupportedCohortDefinition('Cohorts of actions are not supported; use an event.')
      if (typeof group.event_id === 'string') return build.legacyEvent(group)
      const properties = Array.isArray(group.properties) ? group.properties.filter(isJsonObject) : []
      return build.group(
        'AND',
        properties.map((p) => readLeaf({ type: 'person', ...p }, build)),
      )
    }),
  )
}

/** The cohort's conditions as ClickHouse calculates them. */
const calculation: CohortDefinitionBuilder<PropertyExpression> = {
  group: (type, values) => ({ type, values }),
  person(item, negated) {
    const condition = propertyCondition({ ...item, type: 'person' }, 'filters')
    return negated ? { type: 'AND', values: [condition], negated: true } : condition
  },
  cohort: (cohortId, negated) => ({ type: 'cohort', cohortId, version: 0, negated }) satisfies Pending,
  behaviour,
  legacyEvent(group) {
    const operator = group.count_operator === 'lte' ? 'lte' : group.count_operator === 'eq' ? 'eq' : 'gte'
    const days = Number(group.days ?? 365)
    return { type: 'behavioral', event: String(group.event_id), days, count: { operator, value: Number(group.count ?? 1) }, negated: false }
  },
}

/** The cohort's definition as a filter tree; undefined for one without conditions (no members). */
export function definitionOf(row: Pick<CohortRow, 'filters' | 'groups'>): PropertyExpression | undefined {
  return readCohortDefinition(row, calculation)
}

function collectCohorts(e: PropertyExpression, into: Pending[]): void {
  if (e.type === 'AND' || e.type === 'OR') for (const v of e.values) collectCohorts(v, into)
  else if (e.type === 'cohort') into.push(e)
}

/**
 * Pins every cohort a filter tree names to its current members; a cohort that has none yet
 * (or is another project's) matches nobody, as no calculation has version 0.
 */
export async function pinCohortVersions<T extends PropertyExpression | undefined>(sql: Sql, projectId: number, expression: T): Promise<T> {
  if (!expression) return expression
  const referenced: Pending[] = []
  collectCohorts(expression, referenced)
  if (referenced.length === 0) return expression
  const versions = await cohorts.membersVersions(sql, projectId, [...new Set(referenced.map((c) => c.cohortId))])
  for (const c of referenced) c.version = versions.get(c.cohortId) ?? 0
  return expression
}

/** The cohort's definition ready to calculate. */
export function resolvedDefinition(sql: Sql, row: CohortRow): Promise<PropertyExpression | undefined> {
  return pinCohortVersions(sql, row.project_id, definitionOf(row))
}
