/**
 * PostHog's property filters as ClickHouse conditions. Every key and value travels as a query
 * parameter; only fixed fragments are written into the SQL text.
 */
export interface PropertyCondition {
  key: string
  /** Strings to compare with (a list for exact/is_not), a number for gt/lt, nothing for is_set. */
  value: string | number | string[] | null
  operator:
    | 'exact'
    | 'is_not'
    | 'icontains'
    | 'not_icontains'
    | 'regex'
    | 'not_regex'
    | 'gt'
    | 'gte'
    | 'lt'
    | 'lte'
    | 'is_set'
    | 'is_not_set'
    | 'is_date_exact'
    | 'is_date_before'
    | 'is_date_after'
  type: 'event' | 'person'
}

export class SqlParams {
  readonly values: Record<string, unknown> = {}
  private next = 0

  /** Registers a value and answers its placeholder, e.g. `{p3:String}`. */
  add(type: string, value: unknown): string {
    const name = `p${this.next++}`
    this.values[name] = value
    return `{${name}:${type}}`
  }
}

const COMPARISONS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const

/**
 * One condition on the JSON text in `column`, or on `materialized`, a column that holds the
 * property alone (NULL where it is missing; see materializedProperties), which is far cheaper to read.
 */
export function conditionOn(column: string, c: PropertyCondition, params: SqlParams, materialized?: string): string {
  let has: string
  // The value as text: strings unquoted and unescaped, anything else as its JSON.
  let text: string
  if (materialized !== undefined) {
    has = `(\`${materialized}\` IS NOT NULL)`
    text = `assumeNotNull(\`${materialized}\`)`
  } else {
    const key = params.add('String', c.key)
    has = `JSONHas(${column}, ${key})`
    text = `if(JSONType(${column}, ${key}) = 'String', JSONExtractString(${column}, ${key}), JSONExtractRaw(${column}, ${key}))`
  }
  const value = c.value
  switch (c.operator) {
    case 'exact':
    case 'is_not': {
      const list = Array.isArray(value) ? value : [String(value ?? '')]
      const matches = `(${has} AND ${text} IN ${params.add('Array(String)', list)})`
      return c.operator === 'exact' ? matches : `NOT ${matches}`
    }
    case 'icontains':
      return `(${has} AND positionCaseInsensitiveUTF8(${text}, ${params.add('String', String(value))}) > 0)`
    case 'not_icontains':
      return `NOT (${has} AND positionCaseInsensitiveUTF8(${text}, ${params.add('String', String(value))}) > 0)`
    case 'regex':
      return `(${has} AND match(${text}, ${params.add('String', String(value))}))`
    case 'not_regex':
      return `NOT (${has} AND match(${text}, ${params.add('String', String(value))}))`
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return `(toFloat64OrNull(${text}) ${COMPARISONS[c.operator]} ${params.add('Float64', Number(value))}) = 1`
    case 'is_set':
      return has
    case 'is_not_set':
      return `NOT ${has}`
    case 'is_date_exact':
    case 'is_date_before':
    case 'is_date_after': {
      const op = c.operator === 'is_date_exact' ? '=' : c.operator === 'is_date_before' ? '<' : '>'
      const at = `parseDateTime64BestEffort(${params.add('String', String(value))}, 6, 'UTC')`
      return `(parseDateTime64BestEffortOrNull(${text}, 6, 'UTC') ${op} ${at}) = 1`
    }
  }
}

/** The current persons of a team, with their latest properties, as a subquery. */
export function currentPersonsSql(teamParam: string): string {
  return `SELECT id, argMax(properties, version) AS properties, argMax(created_at, version) AS created_at,
      argMax(is_deleted, version) AS deleted
    FROM person WHERE team_id = ${teamParam} GROUP BY id HAVING deleted = 0`
}

/** The current distinct ids of the team with the person each maps to. */
export function currentDistinctIdsSql(teamParam: string): string {
  return `SELECT distinct_id, argMax(person_id, version) AS person_id
    FROM person_distinct_id2 WHERE team_id = ${teamParam}
    GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0`
}

/** The distinct ids mapped now to the persons of `personIdsSql`. */
export function distinctIdsOfPersonsSql(teamParam: string, personIdsSql: string): string {
  return `SELECT distinct_id FROM (${currentDistinctIdsSql(teamParam)}) WHERE person_id IN (${personIdsSql})`
}

/** The members of a cohort as of its current calculation (or upload). */
export function cohortMembersSql(teamParam: string, c: CohortCondition, params: SqlParams): string {
  return `SELECT person_id FROM cohortpeople WHERE team_id = ${teamParam}
    AND cohort_id = ${params.add('Int64', c.cohortId)} AND version = ${params.add('UInt64', c.version)}`
}

/** Membership of a cohort; the caller looks up which calculation is current. */
export interface CohortCondition {
  type: 'cohort'
  cohortId: number
  version: number
  negated: boolean
}

/** A person performed an event some number of times within the last days (a cohort's behavioural condition). */
export interface BehaviouralCondition {
  type: 'behavioral'
  event: string
  days: number
  count: { operator: 'gte' | 'lte' | 'eq'; value: number }
  negated: boolean
}

/** Persons by how often they performed the event: `having` is a condition on count(). */
function performersSql(teamParam: string, c: BehaviouralCondition, having: string, params: SqlParams): string {
  return `SELECT pdi.person_id FROM events AS e
    INNER JOIN (${currentDistinctIdsSql(teamParam)}) AS pdi ON e.distinct_id = pdi.distinct_id
    WHERE e.team_id = ${teamParam} AND e.event = ${params.add('String', c.event)}
      AND e.timestamp > now64(6, 'UTC') - toIntervalDay(${params.add('UInt32', c.days)})
    GROUP BY pdi.person_id HAVING ${having}`
}

/** The behavioural condition on a person `id`; counts of zero include persons with no such event. */
function behaviourSql(teamParam: string, c: BehaviouralCondition, params: SqlParams): string {
  const n = params.add('UInt64', c.count.value)
  let sql: string
  if (c.count.operator === 'gte') sql = c.count.value <= 0 ? '1' : `id IN (${performersSql(teamParam, c, `count() >= ${n}`, params)})`
  else if (c.count.operator === 'lte') sql = `id NOT IN (${performersSql(teamParam, c, `count() > ${n}`, params)})`
  else if (c.count.value === 0) sql = `id NOT IN (${performersSql(teamParam, c, 'count() > 0', params)})`
  else sql = `id IN (${performersSql(teamParam, c, `count() = ${n}`, params)})`
  return c.negated ? `NOT (${sql})` : sql
}

/** Conditions combined with AND or OR, nested as PostHog's property groups are. */
export interface PropertyGroup {
  type: 'AND' | 'OR'
  values: PropertyExpression[]
  /** The group holds when its conditions do not (a cohort condition's `negation`). */
  negated?: boolean
}
export type PropertyExpression = PropertyCondition | CohortCondition | BehaviouralCondition | PropertyGroup
type Leaf = Exclude<PropertyExpression, PropertyGroup>

const isGroup = (e: PropertyExpression): e is PropertyGroup => e.type === 'AND' || e.type === 'OR'

/** A filter tree as SQL, each leaf written by `leaf`. */
function treeSql(expression: PropertyExpression, leaf: (c: Leaf) => string): string {
  if (!isGroup(expression)) return leaf(expression)
  const sql = expression.values.length === 0 ? '1' : `(${expression.values.map((e) => treeSql(e, leaf)).join(` ${expression.type} `)})`
  return expression.negated ? `NOT ${sql}` : sql
}

/**
 * A filter tree on events of one team: event properties directly (from their own columns where
 * `materialized` names one), persons and cohorts through the persons.
 */
export function eventPropertiesSql(
  expression: PropertyExpression,
  teamParam: string,
  params: SqlParams,
  materialized: ReadonlyMap<string, string> = new Map(),
): string {
  return treeSql(expression, (c) => {
    // `$elements_chain` is the events' column of that name (ingestion moves it out of the properties), as PostHog reads it.
    if (c.type === 'event')
      return conditionOn('properties', c, params, materialized.get(c.key) ?? (c.key === '$elements_chain' ? 'elements_chain' : undefined))
    if (c.type === 'behavioral') throw new Error('a behavioural condition applies to persons, not to events')
    const persons =
      c.type === 'cohort'
        ? cohortMembersSql(teamParam, c, params)
        : `SELECT id FROM (${currentPersonsSql(teamParam)}) WHERE ${conditionOn('properties', c, params)}`
    const inPersons = `distinct_id IN (${distinctIdsOfPersonsSql(teamParam, persons)})`
    return c.type === 'cohort' && c.negated ? `NOT ${inPersons}` : inPersons
  })
}

/**
 * A filter on events split in two: the conditions every match must meet that read a property's
 * own column (cheap, for PREWHERE: rows they rule out are never read further), and the rest
 * (the JSON text, persons, cohorts). Only a top-level AND (or a lone condition) can be split.
 */
export function splitOnOwnColumns(
  expression: PropertyExpression,
  materialized: ReadonlyMap<string, string>,
): { ownColumns: PropertyExpression | undefined; rest: PropertyExpression | undefined } {
  const conjuncts = !isGroup(expression) ? [expression] : expression.type === 'AND' && !expression.negated ? expression.values : undefined
  if (!conjuncts) return { ownColumns: undefined, rest: expression }
  const cheap = (e: PropertyExpression) => !isGroup(e) && e.type === 'event' && materialized.has(e.key)
  const ownColumns = conjuncts.filter(cheap)
  const rest = conjuncts.filter((e) => !cheap(e))
  return {
    ownColumns: ownColumns.length > 0 ? { type: 'AND', values: ownColumns } : undefined,
    rest: rest.length > 0 ? { type: 'AND', values: rest } : undefined,
  }
}

/** A filter tree over persons (rows with `id` and `properties`): every property condition is on the person. */
export function personPropertiesSql(expression: PropertyExpression, teamParam: string, params: SqlParams): string {
  return treeSql(expression, (c) => {
    if (c.type === 'behavioral') return behaviourSql(teamParam, c, params)
    if (c.type !== 'cohort') return conditionOn('properties', c, params)
    return `${c.negated ? 'NOT ' : ''}id IN (${cohortMembersSql(teamParam, c, params)})`
  })
}
