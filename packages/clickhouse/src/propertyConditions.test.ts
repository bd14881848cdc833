import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PROPERTY_OPERATORS } from '@burrow/contracts'
import {
  conditionOn,
  eventPropertiesSql,
  personPropertiesSql,
  splitOnOwnColumns,
  SqlParams,
  type BehaviouralCondition,
  type CohortCondition,
  type PropertyCondition,
  type PropertyExpression,
} from './propertyConditions'

const TEAM = '{team_id:Int64}'

/** The SQL of one condition on the `properties` column, with the parameters it registered. */
function condition(c: PropertyCondition): { sql: string; params: Record<string, unknown> } {
  const params = new SqlParams()
  return { sql: conditionOn('properties', c, params), params: params.values }
}

function onEvents(expression: PropertyExpression): { sql: string; params: Record<string, unknown> } {
  const params = new SqlParams()
  return { sql: eventPropertiesSql(expression, TEAM, params), params: params.values }
}

function onPersons(expression: PropertyExpression): { sql: string; params: Record<string, unknown> } {
  const params = new SqlParams()
  return { sql: personPropertiesSql(expression, TEAM, params), params: params.values }
}

const event = (operator: PropertyCondition['operator'], value: PropertyCondition['value'], key = '$browser'): PropertyCondition => ({
  key,
  value,
  operator,
  type: 'event',
})
const person = (operator: PropertyCondition['operator'], value: PropertyCondition['value'], key = 'email'): PropertyCondition => ({
  key,
  value,
  operator,
  type: 'person',
})
const cohort = (cohortId: number, negated = false): CohortCondition => ({ type: 'cohort', cohortId, version: 3, negated })
const performed = (count: BehaviouralCondition['count'], negated = false): BehaviouralCondition => ({
  type: 'behavioral',
  event: '$pageview',
  days: 30,
  count,
  negated,
})

describe('the SQL of each operator', () => {
  it('exact with one value compares the text of the property with a list of one', () => {
    expect(condition(event('exact', 'Chrome'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "$browser",
          "p1": [
            "Chrome",
          ],
        },
        "sql": "(JSONHas(properties, {p0:String}) AND if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})) IN {p1:Array(String)})",
      }
    `)
  })

  it('exact with a list matches any of its values', () => {
    expect(condition(event('exact', ['Chrome', 'Firefox']))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "$browser",
          "p1": [
            "Chrome",
            "Firefox",
          ],
        },
        "sql": "(JSONHas(properties, {p0:String}) AND if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})) IN {p1:Array(String)})",
      }
    `)
  })

  it('exact with a number or no value compares with its text', () => {
    expect(condition(event('exact', 42)).params).toMatchInlineSnapshot(`
      {
        "p0": "$browser",
        "p1": [
          "42",
        ],
      }
    `)
    expect(condition(event('exact', null)).params).toMatchInlineSnapshot(`
      {
        "p0": "$browser",
        "p1": [
          "",
        ],
      }
    `)
  })

  it('is_not negates exact, so a property that is absent matches', () => {
    expect(condition(event('is_not', 'Chrome'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "$browser",
          "p1": [
            "Chrome",
          ],
        },
        "sql": "NOT (JSONHas(properties, {p0:String}) AND if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})) IN {p1:Array(String)})",
      }
    `)
    expect(condition(event('is_not', ['Chrome', 'Safari']))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "$browser",
          "p1": [
            "Chrome",
            "Safari",
          ],
        },
        "sql": "NOT (JSONHas(properties, {p0:String}) AND if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})) IN {p1:Array(String)})",
      }
    `)
  })

  it('icontains and not_icontains search the text without regard to case', () => {
    expect(condition(event('icontains', 'chrom'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "$browser",
          "p1": "chrom",
        },
        "sql": "(JSONHas(properties, {p0:String}) AND positionCaseInsensitiveUTF8(if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})), {p1:String}) > 0)",
      }
    `)
    expect(condition(event('not_icontains', 'chrom'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "$browser",
          "p1": "chrom",
        },
        "sql": "NOT (JSONHas(properties, {p0:String}) AND positionCaseInsensitiveUTF8(if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})), {p1:String}) > 0)",
      }
    `)
  })

  it('regex and not_regex match the text with the pattern', () => {
    expect(condition(event('regex', '^Chrom(e|ium)$'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "$browser",
          "p1": "^Chrom(e|ium)$",
        },
        "sql": "(JSONHas(properties, {p0:String}) AND match(if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})), {p1:String}))",
      }
    `)
    expect(condition(event('not_regex', '^Chrom(e|ium)$'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "$browser",
          "p1": "^Chrom(e|ium)$",
        },
        "sql": "NOT (JSONHas(properties, {p0:String}) AND match(if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})), {p1:String}))",
      }
    `)
  })

  it('gt, gte, lt and lte compare the property as a number with a Float64 parameter', () => {
    expect(condition(event('gt', 10, 'price'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "price",
          "p1": 10,
        },
        "sql": "(toFloat64OrNull(if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String}))) > {p1:Float64}) = 1",
      }
    `)
    expect(condition(event('gte', '10.5', 'price'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "price",
          "p1": 10.5,
        },
        "sql": "(toFloat64OrNull(if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String}))) >= {p1:Float64}) = 1",
      }
    `)
    expect(condition(event('lt', 0, 'price'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "price",
          "p1": 0,
        },
        "sql": "(toFloat64OrNull(if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String}))) < {p1:Float64}) = 1",
      }
    `)
    expect(condition(event('lte', -3, 'price'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "price",
          "p1": -3,
        },
        "sql": "(toFloat64OrNull(if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String}))) <= {p1:Float64}) = 1",
      }
    `)
  })

  it('is_set and is_not_set only ask whether the key is there, with no value parameter', () => {
    expect(condition(event('is_set', null))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "$browser",
        },
        "sql": "JSONHas(properties, {p0:String})",
      }
    `)
    expect(condition(event('is_not_set', null))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "$browser",
        },
        "sql": "NOT JSONHas(properties, {p0:String})",
      }
    `)
  })

  it('is_date_exact, is_date_before and is_date_after compare parsed dates in UTC', () => {
    expect(condition(event('is_date_exact', '2024-01-31', 'signed_up_at'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "signed_up_at",
          "p1": "2024-01-31",
        },
        "sql": "(parseDateTime64BestEffortOrNull(if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})), 6, 'UTC') = parseDateTime64BestEffort({p1:String}, 6, 'UTC')) = 1",
      }
    `)
    expect(condition(event('is_date_before', '2024-01-31T12:00:00Z', 'signed_up_at'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "signed_up_at",
          "p1": "2024-01-31T12:00:00Z",
        },
        "sql": "(parseDateTime64BestEffortOrNull(if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})), 6, 'UTC') < parseDateTime64BestEffort({p1:String}, 6, 'UTC')) = 1",
      }
    `)
    expect(condition(event('is_date_after', '2024-01-31 12:00:00', 'signed_up_at'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "signed_up_at",
          "p1": "2024-01-31 12:00:00",
        },
        "sql": "(parseDateTime64BestEffortOrNull(if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})), 6, 'UTC') > parseDateTime64BestEffort({p1:String}, 6, 'UTC')) = 1",
      }
    `)
  })

  it('reads the column it is given', () => {
    const params = new SqlParams()
    expect(conditionOn('person_properties', event('is_set', null), params)).toMatchInlineSnapshot(
      `"JSONHas(person_properties, {p0:String})"`,
    )
  })
})

describe('conditions on events', () => {
  it('reads an event property from the event itself', () => {
    expect(onEvents(event('exact', 'Chrome'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "$browser",
          "p1": [
            "Chrome",
          ],
        },
        "sql": "(JSONHas(properties, {p0:String}) AND if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})) IN {p1:Array(String)})",
      }
    `)
  })

  it("reads a person property through the current persons of the event's distinct id", () => {
    expect(onEvents(person('icontains', '@example.com'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "email",
          "p1": "@example.com",
        },
        "sql": "distinct_id IN (SELECT distinct_id FROM (SELECT distinct_id, argMax(person_id, version) AS person_id
          FROM person_distinct_id2 WHERE team_id = {team_id:Int64}
          GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0) WHERE person_id IN (SELECT id FROM (SELECT id, argMax(properties, version) AS properties, argMax(created_at, version) AS created_at,
            argMax(is_deleted, version) AS deleted
          FROM person WHERE team_id = {team_id:Int64} GROUP BY id HAVING deleted = 0) WHERE (JSONHas(properties, {p0:String}) AND positionCaseInsensitiveUTF8(if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})), {p1:String}) > 0)))",
      }
    `)
  })

  it('keeps events of the members of a cohort, or of everyone else when negated', () => {
    expect(onEvents(cohort(7))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": 7,
          "p1": 3,
        },
        "sql": "distinct_id IN (SELECT distinct_id FROM (SELECT distinct_id, argMax(person_id, version) AS person_id
          FROM person_distinct_id2 WHERE team_id = {team_id:Int64}
          GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0) WHERE person_id IN (SELECT person_id FROM cohortpeople WHERE team_id = {team_id:Int64}
          AND cohort_id = {p0:Int64} AND version = {p1:UInt64}))",
      }
    `)
    expect(onEvents(cohort(7, true)).sql.startsWith('NOT distinct_id IN (')).toBe(true)
  })

  it('refuses a behavioural condition, which applies to persons', () => {
    expect(() => onEvents(performed({ operator: 'gte', value: 1 }))).toThrow('a behavioural condition applies to persons, not to events')
  })

  it('joins AND and OR groups in brackets, nested as given, numbering parameters in order', () => {
    expect(
      onEvents({
        type: 'AND',
        values: [event('exact', 'Chrome'), { type: 'OR', values: [event('gt', 100, 'price'), person('is_set', null, 'plan')] }],
      }),
    ).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "$browser",
          "p1": [
            "Chrome",
          ],
          "p2": "price",
          "p3": 100,
          "p4": "plan",
        },
        "sql": "((JSONHas(properties, {p0:String}) AND if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})) IN {p1:Array(String)}) AND ((toFloat64OrNull(if(JSONType(properties, {p2:String}) = 'String', JSONExtractString(properties, {p2:String}), JSONExtractRaw(properties, {p2:String}))) > {p3:Float64}) = 1 OR distinct_id IN (SELECT distinct_id FROM (SELECT distinct_id, argMax(person_id, version) AS person_id
          FROM person_distinct_id2 WHERE team_id = {team_id:Int64}
          GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0) WHERE person_id IN (SELECT id FROM (SELECT id, argMax(properties, version) AS properties, argMax(created_at, version) AS created_at,
            argMax(is_deleted, version) AS deleted
          FROM person WHERE team_id = {team_id:Int64} GROUP BY id HAVING deleted = 0) WHERE JSONHas(properties, {p4:String})))))",
      }
    `)
  })

  it('holds for every event when a group is empty, and negates a negated group', () => {
    expect(onEvents({ type: 'AND', values: [] })).toMatchInlineSnapshot(`
      {
        "params": {},
        "sql": "1",
      }
    `)
    expect(onEvents({ type: 'OR', values: [event('is_set', null), event('is_not_set', null, 'utm_source')], negated: true }))
      .toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "$browser",
          "p1": "utm_source",
        },
        "sql": "NOT (JSONHas(properties, {p0:String}) OR NOT JSONHas(properties, {p1:String}))",
      }
    `)
  })
})

describe('conditions on persons', () => {
  it('reads a person property from the person row, whatever the condition calls its type', () => {
    expect(onPersons(person('regex', '@example\\.com$'))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "email",
          "p1": "@example\\.com$",
        },
        "sql": "(JSONHas(properties, {p0:String}) AND match(if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})), {p1:String}))",
      }
    `)
    expect(onPersons(event('regex', '@example\\.com$', 'email')).sql).toBe(onPersons(person('regex', '@example\\.com$')).sql)
  })

  it('tests membership of a cohort at its current version, negated as asked', () => {
    expect(onPersons(cohort(7))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": 7,
          "p1": 3,
        },
        "sql": "id IN (SELECT person_id FROM cohortpeople WHERE team_id = {team_id:Int64}
          AND cohort_id = {p0:Int64} AND version = {p1:UInt64})",
      }
    `)
    expect(onPersons(cohort(7, true)).sql.startsWith('NOT id IN (')).toBe(true)
  })

  it('counts the events a person performed within the last days', () => {
    expect(onPersons(performed({ operator: 'gte', value: 2 }))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": 2,
          "p1": "$pageview",
          "p2": 30,
        },
        "sql": "id IN (SELECT pdi.person_id FROM events AS e
          INNER JOIN (SELECT distinct_id, argMax(person_id, version) AS person_id
          FROM person_distinct_id2 WHERE team_id = {team_id:Int64}
          GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0) AS pdi ON e.distinct_id = pdi.distinct_id
          WHERE e.team_id = {team_id:Int64} AND e.event = {p1:String}
            AND e.timestamp > now64(6, 'UTC') - toIntervalDay({p2:UInt32})
          GROUP BY pdi.person_id HAVING count() >= {p0:UInt64})",
      }
    `)
  })

  it('includes persons without any such event when the count may be zero', () => {
    expect(onPersons(performed({ operator: 'gte', value: 0 }))).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": 0,
        },
        "sql": "1",
      }
    `)
    expect(onPersons(performed({ operator: 'lte', value: 3 })).sql).toMatch(/^id NOT IN \(.*HAVING count\(\) > \{p0:UInt64\}\)$/s)
    expect(onPersons(performed({ operator: 'eq', value: 0 })).sql).toMatch(/^id NOT IN \(.*HAVING count\(\) > 0\)$/s)
    expect(onPersons(performed({ operator: 'eq', value: 4 })).sql).toMatch(/^id IN \(.*HAVING count\(\) = \{p0:UInt64\}\)$/s)
  })

  it('negates a negated behavioural condition as a whole', () => {
    expect(onPersons(performed({ operator: 'gte', value: 1 }, true)).sql).toMatch(/^NOT \(id IN \(/)
  })

  it('combines person, cohort and behavioural conditions in groups', () => {
    expect(
      onPersons({
        type: 'OR',
        values: [
          { type: 'AND', values: [person('exact', ['pro', 'enterprise'], 'plan'), cohort(2, true)] },
          performed({ operator: 'gte', value: 1 }),
        ],
      }),
    ).toMatchInlineSnapshot(`
      {
        "params": {
          "p0": "plan",
          "p1": [
            "pro",
            "enterprise",
          ],
          "p2": 2,
          "p3": 3,
          "p4": 1,
          "p5": "$pageview",
          "p6": 30,
        },
        "sql": "(((JSONHas(properties, {p0:String}) AND if(JSONType(properties, {p0:String}) = 'String', JSONExtractString(properties, {p0:String}), JSONExtractRaw(properties, {p0:String})) IN {p1:Array(String)}) AND NOT id IN (SELECT person_id FROM cohortpeople WHERE team_id = {team_id:Int64}
          AND cohort_id = {p2:Int64} AND version = {p3:UInt64})) OR id IN (SELECT pdi.person_id FROM events AS e
          INNER JOIN (SELECT distinct_id, argMax(person_id, version) AS person_id
          FROM person_distinct_id2 WHERE team_id = {team_id:Int64}
          GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0) AS pdi ON e.distinct_id = pdi.distinct_id
          WHERE e.team_id = {team_id:Int64} AND e.event = {p5:String}
            AND e.timestamp > now64(6, 'UTC') - toIntervalDay({p6:UInt32})
          GROUP BY pdi.person_id HAVING count() >= {p4:UInt64}))",
      }
    `)
  })
})

describe('values in the SQL', () => {
  // Every operator the API accepts, so that one added there is checked here too.
  const OPERATORS: readonly PropertyCondition['operator'][] = PROPERTY_OPERATORS

  it('never carries the text of a key or a value: both travel as parameters', () => {
    const key = "k3y'); DROP TABLE events; --"
    const value = "v4lue' OR 1=1 {team_id:Int64} \\"
    for (const operator of OPERATORS) {
      for (const type of ['event', 'person'] as const) {
        const { sql, params } = onEvents({ key, value, operator, type })
        expect(sql).not.toContain('k3y')
        expect(sql).not.toContain('v4lue')
        expect(Object.values(params)).toContain(key)
        if (operator !== 'is_set' && operator !== 'is_not_set' && !['gt', 'gte', 'lt', 'lte'].includes(operator)) {
          expect(JSON.stringify(Object.values(params))).toContain(JSON.stringify(value).slice(1, -1))
        }
      }
    }
  })

  it('writes the same SQL whatever the keys and values, for the same operators and shape', () => {
    const text = fc.string({ maxLength: 40 })
    const leaf = fc.record({
      key: text,
      value: fc.oneof(text, fc.array(text, { minLength: 1, maxLength: 4 }), fc.double({ noNaN: true })),
      operator: fc.constantFrom(...OPERATORS),
      type: fc.constantFrom('event' as const, 'person' as const),
    })
    const other = fc.record({ key: text, value: fc.oneof(text, fc.double({ noNaN: true })) })
    fc.assert(
      fc.property(
        fc.array(fc.tuple(leaf, other), { minLength: 1, maxLength: 5 }),
        fc.constantFrom('AND' as const, 'OR' as const),
        (pairs, type) => {
          const first: PropertyExpression = { type, values: pairs.map(([c]) => c) }
          const second: PropertyExpression = {
            type,
            // The same operators and types, with other keys and values (a list stays a list for exact/is_not).
            values: pairs.map(([c, o]) => ({ ...c, key: o.key, value: Array.isArray(c.value) ? [String(o.value)] : o.value })),
          }
          expect(onEvents(second).sql).toBe(onEvents(first).sql)
          expect(onPersons(second).sql).toBe(onPersons(first).sql)
        },
      ),
    )
  })

  it('passes cohort ids, versions, event names and windows as parameters too', () => {
    const a = onPersons({ type: 'AND', values: [cohort(11), { ...performed({ operator: 'gte', value: 5 }), event: "x' OR 1", days: 9 }] })
    const b = onPersons({
      type: 'AND',
      values: [
        { ...cohort(12), version: 8 },
        { ...performed({ operator: 'gte', value: 6 }), event: 'signed up', days: 90 },
      ],
    })
    expect(a.sql).toBe(b.sql)
    expect(Object.values(b.params)).toEqual(expect.arrayContaining([12, 8, 'signed up', 90, 6]))
  })
})

describe('splitOnOwnColumns', () => {
  const own = new Map([['$browser', 'mat_$browser']])
  const browser: PropertyCondition = { key: '$browser', value: 'Firefox', operator: 'exact', type: 'event' }
  const plan: PropertyCondition = { key: 'plan', value: 'pro', operator: 'exact', type: 'event' }
  const personPlan: PropertyCondition = { ...browser, type: 'person' }

  it('moves the conditions on own columns of a top-level AND apart from the rest', () => {
    expect(splitOnOwnColumns({ type: 'AND', values: [browser, plan, personPlan] }, own)).toEqual({
      ownColumns: { type: 'AND', values: [browser] },
      rest: { type: 'AND', values: [plan, personPlan] },
    })
    expect(splitOnOwnColumns({ type: 'AND', values: [browser] }, own)).toEqual({
      ownColumns: { type: 'AND', values: [browser] },
      rest: undefined,
    })
  })

  it('takes a lone condition as an AND of one', () => {
    expect(splitOnOwnColumns(browser, own)).toEqual({ ownColumns: { type: 'AND', values: [browser] }, rest: undefined })
    expect(splitOnOwnColumns(plan, own)).toEqual({ ownColumns: undefined, rest: { type: 'AND', values: [plan] } })
  })

  it('leaves an OR and a negated group whole: no part of them must hold for every match', () => {
    for (const expression of [
      { type: 'OR', values: [browser, plan] },
      { type: 'AND', values: [browser, plan], negated: true },
    ] as PropertyExpression[])
      expect(splitOnOwnColumns(expression, own)).toEqual({ ownColumns: undefined, rest: expression })
  })
})
