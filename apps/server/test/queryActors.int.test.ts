import { describe, expect, it } from 'vitest'
import {
  daysBetween,
  identifies,
  localDay,
  makeEvents,
  MERGED,
  personOf,
  TZ,
  useCaseProjects,
  type CaseProject,
  type SentEvent,
} from './queryFixture'

/**
 * PostHog's ActorsQuery: the persons list, and the persons behind a point of an insight (its
 * persons modal). Cases from PostHog's tests name the test they come from
 * (posthog/hogql_queries/test/test_actors_query_runner.py, insights/test/test_insight_actors_query_runner.py,
 * trends/test/test_trends_actors…, funnels/test/test_funnel_persons.py), with its events and the persons it asserts.
 */

const cases = useCaseProjects()
const { projectWith } = cases

/** PostHog's _create_random_persons: ten identified persons, each with one event of its own. */
function randomPersons(tag: string): SentEvent[] {
  return Array.from({ length: 10 }, (_, index) => ({
    event: `clicky-${index}`,
    distinct_id: `id-${tag}-${index}`,
    timestamp: new Date(Date.UTC(2024, 0, 2, 12, index)).toISOString(),
    properties: {
      $set: { email: `jacob${index}@${tag}.posthog.com`, name: `Mr Jacob ${tag}`, random_uuid: tag, index },
    },
  }))
}

const persons = (extra: Record<string, unknown> = {}) => ({ kind: 'ActorsQuery', ...extra })

describe('test_actors_query_runner.py: the persons list', () => {
  it('test_default_persons_query: every person, as PostHog’s object, with the default columns', async () => {
    const project = await projectWith(randomPersons('RANDOM_TEST_ID::a'))
    const res = await project.query(persons())
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.columns).toEqual(['person', 'id', 'person.$delete'])
    expect(res.body.results).toHaveLength(10)
    const [person, id, deleted] = res.body.results[0]
    expect(Object.keys(person).sort()).toEqual(['created_at', 'distinct_ids', 'id', 'is_identified', 'properties'])
    expect(person.properties.random_uuid).toBe('RANDOM_TEST_ID::a')
    expect(person.distinct_ids.length).toBeGreaterThan(0)
    expect(id).toBe(person.id)
    expect(deleted).toBe(1)
    expect(res.body).toMatchObject({ hasMore: false, limit: 100, offset: 0, missing_actors_count: 0 })
    expect(res.body.types).toHaveLength(3)
  })

  it('test_persons_query_search_email: the email matches whatever its case', async () => {
    const project = await projectWith([...randomPersons('u1'), ...randomPersons('u2')])
    for (const search of ['jacob4@u1.posthog', 'JACOB4@U1.POSTHOG']) {
      const res = await project.query(persons({ search }))
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.results.map((r: any) => r[0].properties.email)).toEqual(['jacob4@u1.posthog.com'])
    }
  })

  it('test_persons_query_search_name: the name matches whatever its case', async () => {
    const project = await projectWith([...randomPersons('u1'), ...randomPersons('u2')])
    for (const search of ['Mr Jacob u1', 'MR JACOB U1']) {
      const res = await project.query(persons({ search }))
      expect(res.body.results).toHaveLength(10)
      expect(res.body.results.every((r: any) => r[0].properties.random_uuid === 'u1')).toBe(true)
    }
  })

  it('test_persons_query_search_distinct_id: a distinct id finds its person', async () => {
    const project = await projectWith([...randomPersons('u1'), ...randomPersons('u2')])
    const res = await project.query(persons({ search: 'id-u1-9' }))
    expect(res.body.results.map((r: any) => r[0].distinct_ids)).toEqual([['id-u1-9']])
  })

  it('test_persons_query_order_by: a property column, ordered by it', async () => {
    const project = await projectWith(randomPersons('u1'))
    const res = await project.query(persons({ select: ['properties.email'], orderBy: ['properties.email DESC'] }))
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.columns).toEqual(['properties.email'])
    expect(res.body.results[0]).toEqual(['jacob9@u1.posthog.com'])
  })

  it('test_persons_query_limit: pages of limit rows from offset, with hasMore', async () => {
    const project = await projectWith(randomPersons('u1'))
    const first = await project.query(persons({ select: ['properties.email'], orderBy: ['properties.email DESC'], limit: 1 }))
    expect(first.body.results).toEqual([['jacob9@u1.posthog.com']])
    expect(first.body.hasMore).toBe(true)
    const second = await project.query(persons({ select: ['properties.email'], orderBy: ['properties.email DESC'], limit: 1, offset: 1 }))
    expect(second.body.results).toEqual([['jacob8@u1.posthog.com']])
    expect(second.body.hasMore).toBe(true)
    const last = await project.query(persons({ select: ['properties.email'], orderBy: ['properties.email DESC'], limit: 5, offset: 5 }))
    expect(last.body.results.map((r: any) => r[0])).toEqual([4, 3, 2, 1, 0].map((i) => `jacob${i}@u1.posthog.com`))
    expect(last.body.hasMore).toBe(false)
  })

  it('orders by person (the email) and answers created_at, newest first by default', async () => {
    const project = await projectWith(randomPersons('u1'))
    const byPerson = await project.query(persons({ select: ['person', 'properties.index'], orderBy: ['person DESC'] }))
    expect(byPerson.body.results.map((r: any) => r[1])).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
    const withCreated = await project.query(persons({ select: ['id', 'created_at'] }))
    const created = withCreated.body.results.map((r: any) => r[1])
    expect([...created].sort().reverse()).toEqual(created)
    expect(created.every((c: string) => !Number.isNaN(Date.parse(c)))).toBe(true)
  })
})

/** PostHog's _create_test_events of test_insight_actors_query_runner.py: p1 and p2's pageviews. */
function insightTestEvents(): SentEvent[] {
  const at = (distinctId: string, day: string) => ({
    event: '$pageview',
    distinct_id: distinctId,
    timestamp: `${day}T12:00:00Z`,
    properties: { $current_url: 'https://posthog.com/foobar', $set: { name: distinctId } },
  })
  return [
    ...['2020-01-11', '2020-01-12', '2020-01-13', '2020-01-15', '2020-01-17', '2020-01-19'].map((d) => at('p1', d)),
    ...['2020-01-09', '2020-01-12'].map((d) => at('p2', d)),
  ]
}

const RANGE_2020 = { date_from: '2020-01-09', date_to: '2020-01-19' }
const RETENTION = {
  kind: 'RetentionQuery',
  dateRange: RANGE_2020,
  retentionFilter: { targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } },
}
const PAGEVIEWS = [{ kind: 'EventsNode', event: '$pageview', math: 'total' }]

/** The persons modal's query: the names of the persons behind a point. */
const namesOf = (source: Record<string, unknown>) => ({ kind: 'ActorsQuery', select: ['properties.name'], source })

describe('test_insight_actors_query_runner.py', () => {
  it('test_insight_persons_trends_query: the persons of a day of a trend', async () => {
    const project = await projectWith(insightTestEvents(), { timezone: 'US/Pacific' })
    const res = await project.query(
      namesOf({ kind: 'InsightActorsQuery', day: '2020-01-09', source: { kind: 'TrendsQuery', dateRange: RANGE_2020, series: PAGEVIEWS } }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([['p2']])
  })

  it('test_insight_persons_lifecycle_query: the persons of a status on a day', async () => {
    const project = await projectWith(insightTestEvents(), { timezone: 'US/Pacific' })
    const res = await project.query(
      namesOf({
        kind: 'InsightActorsQuery',
        day: '2020-01-12',
        status: 'returning',
        source: { kind: 'LifecycleQuery', dateRange: RANGE_2020, series: PAGEVIEWS },
      }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([['p1']])
  })

  it('test_insight_persons_stickiness_query: the persons active on so many days', async () => {
    const project = await projectWith(insightTestEvents(), { timezone: 'US/Pacific' })
    const res = await project.query(
      namesOf({ kind: 'InsightActorsQuery', day: 2, source: { kind: 'StickinessQuery', dateRange: RANGE_2020, series: PAGEVIEWS } }),
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toEqual([['p2']])
    // PostHog's StickinessActorsQuery, with an operator: active on two days or more.
    const atLeast = await project.query(
      namesOf({
        kind: 'StickinessActorsQuery',
        day: 2,
        operator: 'gte',
        source: { kind: 'StickinessQuery', dateRange: RANGE_2020, series: PAGEVIEWS },
      }),
    )
    expect(atLeast.body.results.map((r: any) => r[0]).sort()).toEqual(['p1', 'p2'])
  })
})

/** The persons (by their user, merged ones as one) of the actors of a point. */
async function actorsOf(project: CaseProject, source: Record<string, unknown>): Promise<{ names: string[]; counts: number[] }> {
  // Only a trend's points count each person's events.
  const trend = (source.source as { kind?: string } | undefined)?.kind === 'TrendsQuery'
  const res = await project.query({ kind: 'ActorsQuery', select: trend ? ['person', 'event_count'] : ['person'], source, limit: 1000 })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  expect(res.body.hasMore).toBe(false)
  return {
    names: res.body.results
      .map((r: any) => personOf(r[0].distinct_ids.find((d: string) => !d.startsWith('anon-')) ?? r[0].distinct_ids[0]))
      .sort(),
    counts: res.body.results.map((r: any) => r[1]),
  }
}

/** A project of seeded users over ten days, anonymous ids merged into their users midway; made once, for the oracle cases. */
const FROM = '2025-10-28'
const TO = '2025-11-05'
let project: CaseProject
let sent: SentEvent[]
async function ready(): Promise<void> {
  if (project) return
  sent = [...makeEvents(11, 700, Date.UTC(2025, 9, 27), Date.UTC(2025, 10, 7)), ...identifies(Date.UTC(2025, 10, 1, 12))]
  project = await projectWith(sent, { timezone: TZ })
  for (let k = 0; k < MERGED; k++) {
    await cases.service.personOf(project.account, `anon-${k}`, (p) => (p.distinct_ids as string[]).includes(`u${k}`))
  }
}

describe('the persons of a point of a trend are those the point counts', () => {
  /** The persons of `event` on each day, from the events sent. */
  const oracle =
    (event: string, keep: (e: SentEvent) => boolean = () => true) =>
    (day: string) =>
      [
        ...new Set(
          sent.filter((e) => e.event === event && localDay(e.timestamp, TZ) === day && keep(e)).map((e) => personOf(e.distinct_id)),
        ),
      ].sort()

  it('dau: on each day, as many persons as the point, and exactly those who did the event', async () => {
    await ready()
    const trend = {
      kind: 'TrendsQuery',
      dateRange: { date_from: FROM, date_to: TO },
      series: [{ kind: 'EventsNode', event: 'pageview', math: 'dau' }],
    }
    const answer = await project.query(trend)
    const [row] = answer.body.results
    expect(row.days).toEqual(daysBetween(FROM, TO))
    for (const [i, day] of row.days.entries()) {
      const { names } = await actorsOf(project, { kind: 'InsightActorsQuery', day, source: trend })
      expect(names.length, day).toBe(row.data[i])
      expect(names, day).toEqual(oracle('pageview')(day))
    }
  })

  it.each([
    ['a property', { breakdown: 'plan' }],
    // PostHog's test_trends_breakdown_hogql_persons
    ['a HogQL expression', { breakdown_type: 'hogql', breakdown: 'properties.plan' }],
  ])('total: the persons’ event counts add up to the point, for each value of %s and Other', async (_by, breakdownFilter) => {
    await ready()
    const trend = {
      kind: 'TrendsQuery',
      dateRange: { date_from: FROM, date_to: TO },
      series: [
        { kind: 'EventsNode', event: 'signup' },
        { kind: 'EventsNode', event: 'pageview' },
      ],
      breakdownFilter: { ...breakdownFilter, breakdown_limit: 2 },
    }
    const answer = await project.query(trend)
    expect(answer.body.results.some((r: any) => r.breakdown_value === '$$_posthog_breakdown_other_$$')).toBe(true)
    for (const row of answer.body.results) {
      for (const [i, day] of row.days.entries()) {
        if (i % 3 !== 0) continue
        const { counts } = await actorsOf(project, {
          kind: 'InsightActorsQuery',
          day,
          series: row.action.order,
          breakdown: row.breakdown_value,
          source: trend,
        })
        expect(
          counts.reduce((a, b) => a + b, 0),
          `${row.label} ${day}`,
        ).toBe(row.data[i])
      }
    }
  })

  it('weekly actives: the persons of the seven days up to the point', async () => {
    await ready()
    const trend = {
      kind: 'TrendsQuery',
      dateRange: { date_from: FROM, date_to: TO },
      series: [{ kind: 'EventsNode', event: 'purchase', math: 'weekly_active' }],
    }
    const [row] = (await project.query(trend)).body.results
    for (const [i, day] of row.days.entries()) {
      const { names } = await actorsOf(project, { kind: 'InsightActorsQuery', day, source: trend })
      expect(names.length, day).toBe(row.data[i])
    }
  })

  it('compare: the previous period’s point lists the previous period’s persons', async () => {
    await ready()
    const trend = {
      kind: 'TrendsQuery',
      dateRange: { date_from: '2025-11-02', date_to: '2025-11-05' },
      series: [{ kind: 'EventsNode', event: 'pageview', math: 'dau' }],
      compareFilter: { compare: true },
    }
    const rows = (await project.query(trend)).body.results
    const previous = rows.find((r: any) => r.compare_label === 'previous')
    for (const [i, day] of previous.days.entries()) {
      const { names } = await actorsOf(project, { kind: 'InsightActorsQuery', day, compare: 'previous', source: trend })
      expect(names, day).toEqual(oracle('pageview')(day))
      expect(names.length).toBe(previous.data[i])
    }
  })

  it.each([
    ['first-time users', { math: 'first_time_for_user' }, {}],
    ['the cumulative display of unique users', { math: 'dau' }, { display: 'ActionsLineGraphCumulative' }],
    ['the cumulative display of events', {}, { display: 'ActionsLineGraphCumulative' }],
  ])('%s: each point lists as many persons as it counts', async (_name, math, trendsFilter) => {
    await ready()
    const trend = {
      kind: 'TrendsQuery',
      dateRange: { date_from: FROM, date_to: TO },
      series: [{ kind: 'EventsNode', event: 'signup', ...math }],
      trendsFilter,
    }
    const [row] = (await project.query(trend)).body.results
    expect(row.data.some((v: number) => v > 0)).toBe(true)
    for (const [i, day] of row.days.entries()) {
      const { names, counts } = await actorsOf(project, { kind: 'InsightActorsQuery', day, source: trend })
      const counted = 'math' in math ? names.length : counts.reduce((a, b) => a + b, 0)
      expect(counted, day).toBe(row.data[i])
    }
  })

  it('a total value (BoldNumber): the persons of the whole range', async () => {
    await ready()
    const trend = {
      kind: 'TrendsQuery',
      dateRange: { date_from: FROM, date_to: TO },
      series: [{ kind: 'EventsNode', event: 'signup', math: 'dau' }],
      trendsFilter: { display: 'BoldNumber' },
    }
    const [row] = (await project.query(trend)).body.results
    const { names } = await actorsOf(project, { kind: 'InsightActorsQuery', source: trend })
    expect(names.length).toBe(row.aggregated_value)
    expect(names).toEqual([...new Set(daysBetween(FROM, TO).flatMap((d) => oracle('signup')(d)))].sort())
  })
})

describe('the persons of a lifecycle bar and a stickiness bar are those the bar counts', () => {
  it('lifecycle: each status of each day lists as many persons as its bar', async () => {
    await ready()
    const lifecycle = {
      kind: 'LifecycleQuery',
      dateRange: { date_from: FROM, date_to: TO },
      series: [{ kind: 'EventsNode', event: 'pageview' }],
    }
    const answer = await project.query(lifecycle)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    let nonZero = 0
    for (const row of answer.body.results) {
      for (const [i, day] of row.days.entries()) {
        const { names } = await actorsOf(project, { kind: 'InsightActorsQuery', day, status: row.status, source: lifecycle })
        expect(names.length, `${row.status} ${day}`).toBe(Math.abs(row.data[i]))
        if (names.length > 0) nonZero++
      }
    }
    expect(nonZero).toBeGreaterThan(5)
  })

  it('stickiness: each bar lists as many persons as it counts, exactly those active on that many days', async () => {
    await ready()
    const stickiness = {
      kind: 'StickinessQuery',
      dateRange: { date_from: FROM, date_to: TO },
      series: [{ kind: 'EventsNode', event: 'purchase' }],
    }
    const [row] = (await project.query(stickiness)).body.results
    const activeDays = new Map<string, Set<string>>()
    for (const e of sent) {
      const day = localDay(e.timestamp, TZ)
      if (e.event !== 'purchase' || day < FROM || day > TO) continue
      const person = personOf(e.distinct_id)
      activeDays.set(person, (activeDays.get(person) ?? new Set()).add(day))
    }
    for (const [i, days] of row.days.entries()) {
      const { names } = await actorsOf(project, { kind: 'InsightActorsQuery', day: days, source: stickiness })
      expect(names.length, `${days} days`).toBe(row.data[i])
      expect(names).toEqual(
        [...activeDays]
          .filter(([, d]) => d.size === days)
          .map(([p]) => p)
          .sort(),
      )
    }
  })

  it('cumulative stickiness: each bar lists the persons active on that many days or more, as many as it counts', async () => {
    await ready()
    const stickiness = {
      kind: 'StickinessQuery',
      dateRange: { date_from: FROM, date_to: TO },
      series: [{ kind: 'EventsNode', event: 'signup' }],
      stickinessFilter: { computedAs: 'cumulative' },
    }
    const [row] = (await project.query(stickiness)).body.results
    for (const [i, days] of row.days.entries()) {
      const { names } = await actorsOf(project, { kind: 'InsightActorsQuery', day: days, source: stickiness })
      expect(names.length, `${days} days or more`).toBe(row.data[i])
    }
  })
})

/** PostHog's _create_sample_data_multiple_dropoffs: 5 persons do all three steps, 10 stop at the second, 20 at the first. */
function multipleDropoffs(): SentEvent[] {
  const steps = ['step one', 'step two', 'step three']
  const days = ['2021-05-01', '2021-05-03', '2021-05-05']
  return Array.from({ length: 35 }, (_, i) => {
    const reached = i < 5 ? 3 : i < 15 ? 2 : 1
    return steps
      .slice(0, reached)
      .map((event, s) => ({ event, distinct_id: `user_${i}`, timestamp: `${days[s]}T00:00:00Z`, properties: {} }))
  }).flat()
}

const DROPOFF_FUNNEL = {
  kind: 'FunnelsQuery',
  interval: 'day',
  dateRange: { date_from: '2021-05-01 00:00:00', date_to: '2021-05-07 00:00:00' },
  funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' },
  series: ['step one', 'step two', 'step three'].map((event) => ({ kind: 'EventsNode', event })),
}

describe('funnels/test/test_funnel_persons.py', () => {
  let funnelProject: CaseProject
  const stepActors = async (funnelStep: number, extra: Record<string, unknown> = {}) => {
    funnelProject ??= await projectWith(multipleDropoffs())
    const res = await funnelProject.query({
      kind: 'ActorsQuery',
      select: ['person'],
      source: { kind: 'FunnelsActorsQuery', funnelStep, source: DROPOFF_FUNNEL },
      ...extra,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body
  }

  it('test_first_step: everybody who started', async () => {
    expect((await stepActors(1)).results).toHaveLength(35)
  })
  it('test_last_step: those who reached the third step', async () => {
    const body = await stepActors(3)
    expect(body.results.map((r: any) => r[0].distinct_ids[0]).sort()).toEqual(['user_0', 'user_1', 'user_2', 'user_3', 'user_4'])
  })
  it('test_second_step_dropoff: those who did not reach the second step', async () => {
    expect((await stepActors(-2)).results).toHaveLength(20)
  })
  it('test_last_step_dropoff: those who reached the second step but not the third', async () => {
    const body = await stepActors(-3)
    expect(body.results.map((r: any) => Number(r[0].distinct_ids[0].slice(5))).sort((a: number, b: number) => a - b)).toEqual([
      5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
    ])
  })
  it('test_basic_offset: pages of the persons of a step', async () => {
    const first = await stepActors(1, { limit: 20 })
    expect(first.results).toHaveLength(20)
    expect(first.hasMore).toBe(true)
    const rest = await stepActors(1, { limit: 20, offset: 20 })
    expect(rest.results).toHaveLength(15)
    expect(rest.hasMore).toBe(false)
  })
})

describe('the persons of a funnel step are those the step counts', () => {
  it('each step and each drop-off, for each breakdown value and Other, lists as many persons as the funnel counts', async () => {
    await ready()
    const funnel = {
      kind: 'FunnelsQuery',
      dateRange: { date_from: FROM, date_to: TO },
      series: ['pageview', 'signup', 'purchase'].map((event) => ({ kind: 'EventsNode', event })),
      breakdownFilter: { breakdown: 'plan', breakdown_limit: 2 },
    }
    const answer = await project.query(funnel)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    expect(answer.body.results.some((steps: any[]) => steps[0].breakdown_value[0] === 'Other')).toBe(true)
    for (const steps of answer.body.results) {
      for (const [i, step] of steps.entries()) {
        const source = { kind: 'FunnelsActorsQuery', funnelStep: i + 1, funnelStepBreakdown: step.breakdown_value, source: funnel }
        const { names } = await actorsOf(project, source)
        expect(names.length, `${step.breakdown_value} step ${i + 1}`).toBe(step.count)
        if (i === 0) continue
        const dropped = await actorsOf(project, { ...source, funnelStep: -(i + 1) })
        expect(dropped.names.length, `${step.breakdown_value} dropped before ${i + 1}`).toBe(steps[i - 1].count - step.count)
      }
    }
  })
})

describe('the persons of a retention cohort are those it counts', () => {
  it.each([[false], [true]])('each cell (cumulative: %s) lists as many persons as it counts', async (cumulative) => {
    await ready()
    const retention = {
      kind: 'RetentionQuery',
      dateRange: { date_from: FROM, date_to: TO },
      retentionFilter: {
        targetEntity: { id: 'signup', type: 'events' },
        returningEntity: { id: 'pageview', type: 'events' },
        period: 'Day',
        totalIntervals: 5,
        cumulative,
      },
    }
    const answer = await project.query(retention)
    expect(answer.status, JSON.stringify(answer.body)).toBe(200)
    let returned = 0
    for (const [interval, row] of answer.body.results.entries()) {
      const res = await project.query({
        kind: 'ActorsQuery',
        select: ['person', 'appearances'],
        source: { kind: 'InsightActorsQuery', interval, source: retention },
        limit: 1000,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body.results.length, row.label).toBe(row.values[0].count)
      for (const [offset, value] of row.values.entries()) {
        const persons = res.body.results.filter((r: any) => r[1].includes(offset)).length
        expect(persons, `${row.label} ${value.label}`).toBe(value.count)
        if (offset > 0) returned += persons
      }
    }
    expect(returned).toBeGreaterThan(0)
  })
})

describe('ActorsQuery refusals', () => {
  it.each([
    ['a column it does not answer', { select: ['count()'] }, 'query__select__0'],
    ['a HogQL ordering', { orderBy: ['length(properties.email) DESC'] }, 'query__orderBy__0'],
    ['person property filters', { properties: [{ key: 'email', value: 'x', operator: 'exact', type: 'person' }] }, 'query__properties'],
    ['a page over a thousand rows', { limit: 1001 }, 'query__limit'],
    ['event_count without an insight', { select: ['person', 'event_count'] }, 'query__select__1'],
  ])('refuses %s, naming the field', async (_name, fields, attr) => {
    const project = await projectWith([])
    const res = await project.query(persons(fields))
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.attr).toBe(attr)
  })
})

describe('InsightActorsQuery refusals', () => {
  const trend = { kind: 'TrendsQuery', dateRange: RANGE_2020, series: PAGEVIEWS }
  it.each([
    ['recordings', { includeRecordings: true, day: '2020-01-09' }, 'query__source__includeRecordings'],
    ['a trend without the day of its point', {}, 'query__source__day'],
    ['a day that is not one of the trend', { day: '2021-01-01' }, 'query__source__day'],
    ['a breakdown value of a trend not broken down', { day: '2020-01-09', breakdown: 'Chrome' }, 'query__source__breakdown'],
    ['the previous period of a trend not compared', { day: '2020-01-09', compare: 'previous' }, 'query__source__compare'],
    ['a series the trend does not have', { day: '2020-01-09', series: 3 }, 'query__source__series'],
    ['a retention cohort of a trend', { interval: 0 }, 'query__source__interval'],
    ['a lifecycle status of a trend', { day: '2020-01-09', status: 'new' }, 'query__source__status'],
    ['a retention without its cohort', { source: RETENTION }, 'query__source__interval'],
    ['a cohort the retention does not have', { interval: 30, source: RETENTION }, 'query__source__interval'],
    [
      'a series of a lifecycle',
      { day: '2020-01-09', series: 1, source: { kind: 'LifecycleQuery', dateRange: RANGE_2020, series: PAGEVIEWS } },
      'query__source__series',
    ],
    [
      'the groups of a point',
      {
        day: '2020-01-09',
        source: { ...trend, series: [{ kind: 'EventsNode', event: '$pageview', math: 'unique_group', math_group_type_index: 0 }] },
      },
      'query__source__series',
    ],
    [
      'a histogram bin',
      {
        day: '2020-01-09',
        breakdown: '[1,2]',
        source: { ...trend, breakdownFilter: { breakdown: 'n', breakdown_histogram_bin_count: 3 } },
      },
      'query__source__source__breakdownFilter__breakdown_histogram_bin_count',
    ],
  ])('refuses %s, naming the field', async (_name, fields, attr) => {
    const project = await projectWith([])
    const res = await project.query({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: trend, ...fields } })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.attr).toBe(attr)
  })

  it('refuses the persons of a kind it does not serve as actors, naming it', async () => {
    const project = await projectWith([])
    const res = await project.query({
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', interval: null, source: { kind: 'PathsQuery', pathsFilter: {} } },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body).toMatchObject({ attr: 'query__source__source__kind', detail: 'PathsQuery is not supported.' })
  })
})

describe('FunnelsActorsQuery refusals', () => {
  it.each([
    ['a funnel without the step', {}, 'query__source__funnelStep'],
    ['a step the funnel does not have', { funnelStep: 4 }, 'query__source__funnelStep'],
    ['custom steps', { funnelStep: 1, funnelCustomSteps: [1, 2] }, 'query__source__funnelCustomSteps'],
    [
      'a breakdown value of a funnel not broken down',
      { funnelStep: 1, funnelStepBreakdown: 'Chrome' },
      'query__source__funnelStepBreakdown',
    ],
    [
      'the persons of a funnel over time',
      { funnelStep: 1, source: { ...DROPOFF_FUNNEL, funnelsFilter: { funnelVizType: 'trends' } } },
      'query__source__source__funnelsFilter__funnelVizType',
    ],
  ])('refuses %s, naming the field', async (_name, fields, attr) => {
    const project = await projectWith([])
    const res = await project.query({ kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: DROPOFF_FUNNEL, ...fields } })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.attr).toBe(attr)
  })
})
