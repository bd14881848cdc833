import { waitFor } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import {
  addDays,
  daysBetween,
  identifies,
  localDay,
  localHour,
  makeEvents,
  personOf,
  sendAll,
  TZ,
  calculatedCohort,
  postQuery,
  type SentEvent,
  useQueryProject,
} from './queryFixture'

// 2025-10-25 … 2025-11-08 in New York holds the end of daylight saving time (2 November).
const FROM = '2025-10-25'
const TO = '2025-11-08'
const DAYS = daysBetween(FROM, TO)

const project = useQueryProject(async (service, account) => {
  const events = makeEvents(24, 3000, Date.UTC(2025, 9, 18), Date.UTC(2025, 10, 12))
  // The merges come in the middle of the range, after the anonymous events they merge.
  const sent = [...events, ...identifies(Date.UTC(2025, 10, 1, 12))]
  await sendAll(service, account, sent)
  return sent
})

const inRange = (e: SentEvent) => DAYS.includes(localDay(e.timestamp, TZ))
const ofEvent = (name: string | null) => (e: SentEvent) => name === null || e.event === name

/** Per day of DAYS, the value of `reduce` over the day's events. */
function perDay(events: SentEvent[], reduce: (events: SentEvent[]) => number): number[] {
  return DAYS.map((day) => reduce(events.filter((e) => localDay(e.timestamp, TZ) === day)))
}
const persons = (events: SentEvent[]) => new Set(events.map((e) => personOf(e.distinct_id))).size
const browserOf = (e: SentEvent) => {
  const browser = e.properties.$browser
  if (browser === undefined || browser === null || browser === '') return '$$_posthog_breakdown_null_$$'
  return typeof browser === 'string' ? browser : JSON.stringify(browser)
}
const planOf = (e: SentEvent) => {
  const plan = e.properties.plan as string | undefined
  return plan === undefined || plan === '' ? '$$_posthog_breakdown_null_$$' : plan
}

async function trends(query: Record<string, unknown>) {
  const res = await project.query({ query: { kind: 'TrendsQuery', dateRange: { date_from: FROM, date_to: TO }, ...query } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}

describe('TrendsQuery', () => {
  it('counts events, sums a property and counts persons per day of the project timezone, merged persons once', async () => {
    const body = await trends({
      series: [
        { kind: 'EventsNode', event: 'pageview', custom_name: 'Views' },
        { kind: 'EventsNode', event: 'purchase', math: 'sum', math_property: 'amount' },
        { kind: 'EventsNode', event: null, math: 'dau' },
      ],
    })
    const events = project.sent.filter(inRange)
    const views = perDay(events.filter(ofEvent('pageview')), (es) => es.length)
    const revenue = perDay(events.filter(ofEvent('purchase')), (es) => es.reduce((s, e) => s + Number(e.properties.amount), 0))
    const actives = perDay(events, persons)
    expect(body.results).toHaveLength(3)
    const [first, second, third] = body.results
    expect(first.days).toEqual(DAYS)
    expect(first.data).toEqual(views)
    expect(first.count).toBe(views.reduce((a, b) => a + b, 0))
    expect(first).toMatchObject({
      label: 'pageview',
      action: { id: 'pageview', custom_name: 'Views', order: 0, math: 'total', type: 'events' },
    })
    expect(first.labels).toHaveLength(DAYS.length)
    expect(second.data).toEqual(revenue)
    expect(third.data).toEqual(actives)
    expect(third.label).toBe('All events')
    // A merged person's anonymous and identified days count once each.
    expect(Math.max(...actives)).toBeLessThanOrEqual(30)
    expect(body).toMatchObject({ is_cached: false, timezone: TZ })
    expect(body.resolved_date_range.date_from).toMatch(/^2025-10-25T00:00:00\.000-04:00$/)
    expect(body.resolved_date_range.date_to).toMatch(/^2025-11-08T23:59:59\.999-05:00$/)
  })

  it('counts events per person per day and answers their average, median and maximum (count per actor maths)', async () => {
    const body = await trends({
      series: ['avg_count_per_actor', 'median_count_per_actor', 'max_count_per_actor'].map((math) => ({
        kind: 'EventsNode',
        event: 'pageview',
        math,
      })),
    })
    // Each day's pageviews per person, sorted.
    const pageviews = project.sent.filter(inRange).filter(ofEvent('pageview'))
    const perPerson = DAYS.map((day) => {
      const counts = new Map<string, number>()
      for (const e of pageviews.filter((e) => localDay(e.timestamp, TZ) === day)) {
        counts.set(personOf(e.distinct_id), (counts.get(personOf(e.distinct_id)) ?? 0) + 1)
      }
      return [...counts.values()].sort((a, b) => a - b)
    })
    // numpy's default percentile (linear between closest ranks), as ClickHouse's quantile of a small sample.
    const median = (xs: number[]) => {
      if (xs.length === 0) return 0
      const at = (xs.length - 1) / 2
      return xs[Math.floor(at)]! + (xs[Math.ceil(at)]! - xs[Math.floor(at)]!) * (at - Math.floor(at))
    }
    const [avg, med, max] = body.results
    avg.data.forEach((v: number, i: number) => {
      const xs = perPerson[i]!
      expect(v).toBeCloseTo(xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length, 6)
    })
    med.data.forEach((v: number, i: number) => expect(v).toBeCloseTo(median(perPerson[i]!), 6))
    expect(max.data).toEqual(perPerson.map((xs) => (xs.length === 0 ? 0 : Math.max(...xs))))
    expect(perPerson.some((xs) => xs.length > 1 && new Set(xs).size > 1)).toBe(true)
  })

  it('breaks down by an event property, keeping the top values and putting the rest in Other', async () => {
    const body = await trends({
      series: [{ kind: 'EventsNode', event: 'pageview' }],
      breakdownFilter: { breakdown_type: 'event', breakdown: 'plan', breakdown_limit: 2 },
    })
    const events = project.sent.filter(inRange).filter(ofEvent('pageview'))
    const totals = new Map<string, number>()
    for (const e of events) totals.set(planOf(e), (totals.get(planOf(e)) ?? 0) + 1)
    // PostHog ranks the values with one before those without (which go into Other first), then by their total.
    const noValue = (v: string) => (v === '$$_posthog_breakdown_null_$$' ? 1 : 0)
    const ranked = [...totals].sort((a, b) => noValue(a[0]) - noValue(b[0]) || b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([v]) => v)
    const kept = ranked.slice(0, 2)
    const expected = [
      ...kept.map((v) => ({
        breakdown_value: v,
        data: perDay(
          events.filter((e) => planOf(e) === v),
          (es) => es.length,
        ),
      })),
      {
        breakdown_value: '$$_posthog_breakdown_other_$$',
        data: perDay(
          events.filter((e) => !kept.includes(planOf(e))),
          (es) => es.length,
        ),
      },
    ]
    expect(body.results.map((r: any) => ({ breakdown_value: r.breakdown_value, data: r.data }))).toEqual(expected)
    expect(body.results.at(-1).label).toBe('Other (i.e. all remaining values)')
    expect(body.hasMore).toBe(true)
  })

  it('breaks down by a property with a column of its own as by one read from the JSON', async () => {
    const body = await trends({
      series: [{ kind: 'EventsNode', event: 'signup' }],
      breakdownFilter: { breakdown_type: 'event', breakdown: '$browser' },
    })
    const events = project.sent.filter(inRange).filter(ofEvent('signup'))
    const values = [...new Set(events.map(browserOf))]
    const got = new Map(body.results.map((r: any) => [r.breakdown_value, r.data]))
    expect([...got.keys()].sort()).toEqual(values.sort())
    for (const value of values) {
      expect(got.get(value), value).toEqual(
        perDay(
          events.filter((e) => browserOf(e) === value),
          (es) => es.length,
        ),
      )
    }
    expect(values).toEqual(expect.arrayContaining(['42', 'Mobile "Safari"', '$$_posthog_breakdown_null_$$']))
  })

  it('breaks down persons by a person property', async () => {
    const body = await trends({
      series: [{ kind: 'EventsNode', event: 'signup', math: 'dau' }],
      breakdownFilter: { breakdown_type: 'person', breakdown: 'tier' },
    })
    const events = project.sent.filter(inRange).filter(ofEvent('signup'))
    const tierOfPerson = new Map(project.sent.map((e) => [personOf(e.distinct_id), (e.properties.$set as { tier: string }).tier]))
    const byTier = new Map<string, number[]>()
    for (const tier of new Set(tierOfPerson.values())) {
      byTier.set(
        tier,
        perDay(
          events.filter((e) => tierOfPerson.get(personOf(e.distinct_id)) === tier),
          persons,
        ),
      )
    }
    const got = new Map(body.results.map((r: any) => [r.breakdown_value, r.data]))
    expect(got).toEqual(byTier)
  })

  it('counts weekly active persons over the seven local days up to each day', async () => {
    const body = await trends({ series: [{ kind: 'EventsNode', event: 'pageview', math: 'weekly_active' }] })
    const events = project.sent.filter(ofEvent('pageview'))
    const expected = DAYS.map((day) => {
      const window = new Set(Array.from({ length: 7 }, (_, i) => addDays(day, -i)))
      return persons(events.filter((e) => window.has(localDay(e.timestamp, TZ))))
    })
    expect(body.results[0].data).toEqual(expected)
  })

  it('answers one aggregated value for a total display', async () => {
    const body = await trends({
      series: [{ kind: 'EventsNode', event: null, math: 'dau' }],
      trendsFilter: { display: 'BoldNumber' },
    })
    expect(body.results[0].aggregated_value).toBe(persons(project.sent.filter(inRange)))
    expect(body.results[0].data).toEqual([])
  })

  it('counts hours of the project timezone', async () => {
    const res = await project.query({
      query: {
        kind: 'TrendsQuery',
        interval: 'hour',
        dateRange: { date_from: '2025-10-28 00:00:00', date_to: '2025-10-28 23:59:59' },
        series: [{ kind: 'EventsNode', event: null }],
      },
    })
    expect(res.status).toBe(200)
    const hours = Array.from({ length: 24 }, (_, h) => `2025-10-28 ${String(h).padStart(2, '0')}:00:00`)
    expect(res.body.results[0].days).toEqual(hours)
    expect(res.body.results[0].data).toEqual(hours.map((h) => project.sent.filter((e) => localHour(e.timestamp, TZ) === h).length))
  })

  it('compares with the period before', async () => {
    const body = await trends({ series: [{ kind: 'EventsNode', event: 'pageview' }], compareFilter: { compare: true } })
    expect(body.results.map((r: any) => r.compare_label)).toEqual(['current', 'previous'])
    const previousDays = daysBetween(addDays(FROM, -DAYS.length), addDays(FROM, -1))
    const previous = body.results[1]
    expect(previous.days).toEqual(previousDays)
    const pageviews = project.sent.filter(ofEvent('pageview'))
    expect(previous.data).toEqual(previousDays.map((d) => pageviews.filter((e) => localDay(e.timestamp, TZ) === d).length))
  })

  it('filters by event and person properties', async () => {
    const body = await trends({
      series: [{ kind: 'EventsNode', event: 'pageview', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }] }],
      properties: [{ key: 'tier', value: 'gold', operator: 'exact', type: 'person' }],
    })
    const tierOfPerson = new Map(project.sent.map((e) => [personOf(e.distinct_id), (e.properties.$set as { tier: string }).tier]))
    const events = project.sent
      .filter(inRange)
      .filter(ofEvent('pageview'))
      .filter((e) => e.properties.plan === 'pro' && tierOfPerson.get(personOf(e.distinct_id)) === 'gold')
    expect(body.results[0].data).toEqual(perDay(events, (es) => es.length))
  })
})

describe('the query endpoint', () => {
  const query = { kind: 'TrendsQuery', dateRange: { date_from: FROM, date_to: TO }, series: [{ kind: 'EventsNode', event: 'signup' }] }

  it('answers the same query from the cache, whatever order its fields come in, until asked to refresh', async () => {
    const first = await project.query({ query })
    const reordered = { series: query.series, dateRange: { date_to: TO, date_from: FROM }, kind: 'TrendsQuery' }
    const second = await project.query({ query: reordered })
    expect(second.body.is_cached).toBe(true)
    expect(second.body.cache_key).toBe(first.body.cache_key)
    expect(second.body.results).toEqual(first.body.results)
    expect(second.body.last_refresh).toBe(first.body.last_refresh)
    const forced = await project.query({ query, refresh: 'force_blocking' })
    expect(forced.body.is_cached).toBe(false)
    expect(forced.body.results).toEqual(first.body.results)
  })

  it('answers force_cache from the cache only', async () => {
    const miss = await project.query({
      query: { ...query, series: [{ kind: 'EventsNode', event: 'never-sent' }] },
      refresh: 'force_cache',
    })
    expect(miss.status).toBe(200)
    expect(miss.body).toMatchObject({ results: null, is_cached: false })
  })

  it('runs an async query that is polled until complete, and forgets a cancelled one', async () => {
    const purchases = { ...query, series: [{ kind: 'EventsNode', event: 'purchase' }] }
    const started = await project.query({ query: purchases, refresh: 'async', client_query_id: 'purchases-async' })
    expect(started.status).toBe(200)
    expect(started.body.query_status).toMatchObject({ id: 'purchases-async', query_async: true, team_id: project.account.projectId })
    let status: any
    for (let i = 0; i < 100; i++) {
      const res = await project.service.api(project.account, `/api/projects/${project.account.projectId}/query/purchases-async/`)
      expect(res.status).toBe(200)
      status = await res.json()
      if (status.complete) break
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(status).toMatchObject({ complete: true, error: false })
    expect(status.results.results[0].count).toBe(project.sent.filter(inRange).filter(ofEvent('purchase')).length)
    const deleted = await project.service.api(project.account, `/api/projects/${project.account.projectId}/query/purchases-async/`, {
      method: 'DELETE',
    })
    expect(deleted.status).toBe(204)
    const gone = await project.service.api(project.account, `/api/projects/${project.account.projectId}/query/purchases-async/`)
    expect(gone.status).toBe(404)
  })

  it('keeps another project from polling a query', async () => {
    const other = await project.service.account()
    await project.query({ query, refresh: 'async', client_query_id: 'private-one' })
    const res = await project.service.api(other, `/api/projects/${other.projectId}/query/private-one/`)
    expect(res.status).toBe(404)
  })

  it.each([
    [{ query: { kind: 'NoSuchQuery' } }, 'query__kind'],
    [{ query: { ...query, dateRange: { date_from: 'last tuesday' } } }, 'date_from'],
    [{ query: { ...query, series: [] } }, 'query__series'],
    [{ query: { ...query, interval: 'fortnight' } }, 'query__interval'],
    [{ query: { ...query, properties: [{ key: 'plan', operator: 'nope', value: 1 }] } }, 'properties'],
    [{ query: { ...query, series: [{ kind: 'EventsNode', event: 'x', math: 'sum' }] } }, 'series'],
  ])('answers 400 naming the field for a bad query %#', async (body, attr) => {
    const res = await project.query(body)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr })
  })

  it('refuses a range with more intervals than an answer holds', async () => {
    const res = await project.query({
      query: { ...query, interval: 'hour', dateRange: { date_from: '2000-01-01', date_to: '2025-01-01' } },
    })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr: 'interval' })
  })
})

describe('TrendsQuery with HogQL expressions', () => {
  const byValue = (body: any) => new Map(body.results.map((r: any) => [r.breakdown_value, r.data]))

  it('breaks down by an expression over the event as by the property it reads, and by a person’s property', async () => {
    const series = [{ kind: 'EventsNode', event: 'pageview' }]
    const asProperty = await trends({ series, breakdownFilter: { breakdown: 'plan', breakdown_limit: 50 } })
    const asExpression = await trends({
      series,
      breakdownFilter: { breakdown_type: 'hogql', breakdown: 'properties.plan', breakdown_limit: 50 },
    })
    expect(byValue(asExpression)).toEqual(byValue(asProperty))
    expect(byValue(asExpression).has('$$_posthog_breakdown_null_$$')).toBe(true)
    // $browser has a column of its own, which the expression reads as the breakdown does.
    const byBrowser = await trends({ series, breakdownFilter: { breakdown: '$browser', breakdown_limit: 50 } })
    const byBrowserExpression = await trends({
      series,
      breakdownFilter: { breakdown_type: 'hogql', breakdown: 'properties.$browser', breakdown_limit: 50 },
    })
    expect(byValue(byBrowserExpression)).toEqual(byValue(byBrowser))

    const dau = [{ kind: 'EventsNode', event: 'signup', math: 'dau' }]
    const byTier = await trends({ series: dau, breakdownFilter: { breakdown_type: 'person', breakdown: 'tier' } })
    const byTierExpression = await trends({
      series: dau,
      breakdownFilter: { breakdown_type: 'hogql', breakdown: 'person.properties.tier' },
    })
    expect(byValue(byTierExpression)).toEqual(byValue(byTier))
  })

  it('breaks down by a computed value, alone or beside a property', async () => {
    const events = project.sent.filter(inRange).filter(ofEvent('purchase'))
    const size = (e: SentEvent) => (Number(e.properties.amount) > 50 ? 'large' : 'small')
    const body = await trends({
      series: [{ kind: 'EventsNode', event: 'purchase' }],
      breakdownFilter: { breakdown_type: 'hogql', breakdown: "if(toFloat(properties.amount) > 50, 'large', 'small')" },
    })
    expect(byValue(body)).toEqual(
      new Map(
        ['large', 'small'].map((v) => [
          v,
          perDay(
            events.filter((e) => size(e) === v),
            (es) => es.length,
          ),
        ]),
      ),
    )
    const both = await trends({
      series: [{ kind: 'EventsNode', event: 'purchase' }],
      breakdownFilter: {
        breakdowns: [
          { type: 'hogql', property: "if(toFloat(properties.amount) > 50, 'large', 'small')" },
          { type: 'event', property: 'plan' },
        ],
        breakdown_limit: 50,
      },
    })
    const large = both.results.filter((r: any) => r.breakdown_value[0] === 'large')
    const total = large.reduce((sum: number, r: any) => sum + r.count, 0)
    expect(total).toBe(events.filter((e) => size(e) === 'large').length)
  })

  it('counts each day as a HogQL aggregate says, with a property read as a number', async () => {
    const events = project.sent.filter(inRange).filter(ofEvent('purchase'))
    const body = await trends({
      series: [{ kind: 'EventsNode', event: 'purchase', math: 'hogql', math_hogql: 'sum(properties.amount) / 2 + count()' }],
    })
    const expected = perDay(events, (es) => es.reduce((s, e) => s + Number(e.properties.amount), 0) / 2 + es.length)
    expect(body.results[0].data).toEqual(expected)
    // What the same math answers as a property math: the HogQL one agrees with it.
    const avg = await trends({ series: [{ kind: 'EventsNode', event: 'purchase', math: 'hogql', math_hogql: 'avg(properties.amount)' }] })
    const asMath = await trends({ series: [{ kind: 'EventsNode', event: 'purchase', math: 'avg', math_property: 'amount' }] })
    expect(avg.results[0].data).toEqual(asMath.results[0].data)
  })

  it('reads only the project’s rows in a subquery of an expression', async () => {
    const body = await trends({
      series: [{ kind: 'EventsNode', event: 'signup', math: 'hogql', math_hogql: '(SELECT count() FROM events) + 0 * count()' }],
      trendsFilter: { display: 'BoldNumber' },
    })
    expect(body.results[0].aggregated_value).toBe(project.sent.length)
  })

  it.each([
    [
      'an aggregate as a breakdown',
      { breakdownFilter: { breakdown_type: 'hogql', breakdown: 'count()' } },
      'query__breakdownFilter__breakdown',
    ],
    [
      'a field events lack',
      { breakdownFilter: { breakdown_type: 'hogql', breakdown: 'nonsense.field' } },
      'query__breakdownFilter__breakdown',
    ],
    [
      'a syntax error',
      { breakdownFilter: { breakdown_type: 'hogql', breakdown: 'properties.$browser +' } },
      'query__breakdownFilter__breakdown',
    ],
    [
      'a function off the allow-list',
      { breakdownFilter: { breakdown_type: 'hogql', breakdown: "file('x')" } },
      'query__breakdownFilter__breakdown',
    ],
    [
      'an expression in a list of breakdowns',
      {
        breakdownFilter: {
          breakdowns: [
            { type: 'event', property: 'plan' },
            { type: 'hogql', property: 'sum(1)' },
          ],
        },
      },
      'query__breakdownFilter__breakdowns__1__property',
    ],
    [
      'a histogram of an expression',
      { breakdownFilter: { breakdown_type: 'hogql', breakdown: 'properties.amount', breakdown_histogram_bin_count: 3 } },
      'query__breakdownFilter__breakdown_histogram_bin_count',
    ],
    [
      'a math that does not aggregate',
      { series: [{ kind: 'EventsNode', event: 'purchase', math: 'hogql', math_hogql: 'properties.amount' }] },
      'query__series__0__math_hogql',
    ],
    [
      'math hogql without its expression',
      { series: [{ kind: 'EventsNode', event: 'purchase', math: 'hogql' }] },
      'query__series__0__math_hogql',
    ],
    [
      'math_hogql without math hogql',
      { series: [{ kind: 'EventsNode', event: 'purchase', math_hogql: 'count()' }] },
      'query__series__0__math_hogql',
    ],
  ])('refuses %s with a 400 naming the field', async (_name, extra, attr) => {
    const res = await project.query({
      query: {
        kind: 'TrendsQuery',
        dateRange: { date_from: FROM, date_to: TO },
        series: [{ kind: 'EventsNode', event: 'purchase' }],
        ...extra,
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr })
    // The parser may list the keywords it expected; never the statement that would have run.
    expect(JSON.stringify(res.body)).not.toMatch(/JSONExtract|team_id|Code: \d+/)
  })
})

describe('TrendsQuery broken down by cohort', () => {
  const tierCohort = (tier: string) =>
    calculatedCohort(project.service, project.account, {
      name: `Tier ${tier}`,
      groups: [{ properties: [{ key: 'tier', value: tier, type: 'person' }] }],
    })

  it('answers one row per cohort as the trend filtered by it, labelled by name and valued by id, and all users', async () => {
    const [gold, silver] = [await tierCohort('gold'), await tierCohort('silver')]
    const series = [{ kind: 'EventsNode', event: 'pageview', math: 'dau' }]
    const body = await trends({ series, breakdownFilter: { breakdown_type: 'cohort', breakdown: [gold.id, silver.id, 'all'] } })
    const rows = new Map(body.results.map((r: any) => [r.breakdown_value, r]))
    expect([...rows.keys()].sort()).toEqual([gold.id, silver.id, 'all'].sort())
    for (const [cohort, name] of [
      [gold, 'Tier gold'],
      [silver, 'Tier silver'],
    ] as const) {
      const filtered = await trends({ series, properties: [{ key: 'id', value: cohort.id, type: 'cohort' }] })
      expect((rows.get(cohort.id) as any).data, name).toEqual(filtered.results[0].data)
      expect((rows.get(cohort.id) as any).label).toBe(name)
    }
    const unbroken = await trends({ series })
    expect((rows.get('all') as any).data).toEqual(unbroken.results[0].data)
    expect((rows.get('all') as any).label).toBe('all users')

    // The persons behind a cohort's point are that cohort's persons with events that day.
    const row = rows.get(gold.id) as any
    const day = row.days[row.data.findIndex((n: number) => n > 0)]
    const actors = await project.query({
      query: {
        kind: 'ActorsQuery',
        source: {
          kind: 'InsightActorsQuery',
          day,
          breakdown: gold.id,
          source: {
            kind: 'TrendsQuery',
            dateRange: { date_from: FROM, date_to: TO },
            series,
            breakdownFilter: { breakdown_type: 'cohort', breakdown: [gold.id, 'all'] },
          },
        },
      },
    })
    expect(actors.status, JSON.stringify(actors.body)).toBe(200)
    expect(actors.body.results).toHaveLength(row.data[row.days.indexOf(day)])
  })

  it.each([
    ['a cohort that does not exist', { breakdown_type: 'cohort', breakdown: [987654321] }, 'query__breakdownFilter__breakdown'],
    ['a list of properties', { breakdown: ['plan', 'tier'] }, 'query__breakdownFilter__breakdown'],
    ['a cohort named by text', { breakdown_type: 'cohort', breakdown: 'gold' }, 'query__breakdownFilter__breakdown'],
    [
      'too many cohorts',
      { breakdown_type: 'cohort', breakdown: Array.from({ length: 26 }, (_, i) => i + 1) },
      'query__breakdownFilter__breakdown',
    ],
    [
      'a histogram of cohorts',
      { breakdown_type: 'cohort', breakdown: ['all'], breakdown_histogram_bin_count: 2 },
      'query__breakdownFilter__breakdown_histogram_bin_count',
    ],
  ])('refuses %s with a 400 naming the field', async (_name, breakdownFilter, attr) => {
    const res = await project.query({
      query: {
        kind: 'TrendsQuery',
        dateRange: { date_from: FROM, date_to: TO },
        series: [{ kind: 'EventsNode', event: 'pageview' }],
        breakdownFilter,
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr })
  })

  it('refuses a first-time math broken down by cohort, naming the series', async () => {
    const res = await project.query({
      query: {
        kind: 'TrendsQuery',
        dateRange: { date_from: FROM, date_to: TO },
        series: [{ kind: 'EventsNode', event: 'pageview', math: 'first_time_for_user' }],
        breakdownFilter: { breakdown_type: 'cohort', breakdown: ['all'] },
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body).toMatchObject({ attr: 'query__series__0__math' })
  })
})

describe('TrendsQuery broken down by a group property', () => {
  it('reads the property from each event’s group of the type, as the group is now', async () => {
    const account = await project.service.account()
    const at = (day: number) => `2025-11-0${day}T12:00:00Z`
    const company = (key: string, set: Record<string, unknown>, day: number): SentEvent => ({
      event: '$groupidentify',
      distinct_id: `$company_${key}`,
      timestamp: at(day),
      properties: { $group_type: 'company', $group_key: key, $group_set: set },
    })
    const view = (who: string, day: number, key?: string): SentEvent => ({
      event: 'pageview',
      distinct_id: who,
      timestamp: at(day),
      properties: key ? { $groups: { company: key } } : {},
    })
    const events = [
      company('acme', { plan: 'free' }, 1),
      company('globex', { plan: 'paid' }, 1),
      view('u1', 1, 'acme'),
      view('u1', 2, 'acme'),
      view('u2', 2, 'globex'),
      view('u2', 3, 'globex'),
      view('u3', 3),
      // Acme upgrades after its views: a breakdown reads the group's properties as they are now.
      company('acme', { plan: 'enterprise' }, 4),
    ]
    await sendAll(project.service, account, events, 0, 0)
    const trend = (breakdownFilter: Record<string, unknown>) =>
      postQuery(project.service, account, {
        query: {
          kind: 'TrendsQuery',
          series: [{ kind: 'EventsNode', event: 'pageview' }],
          dateRange: { date_from: '2025-11-01', date_to: '2025-11-05' },
          breakdownFilter,
        },
        refresh: 'force_blocking',
      })
    const counts = await waitFor(
      async () => {
        const res = await trend({ breakdown_type: 'group', breakdown: 'plan', breakdown_group_type_index: 0 })
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        const byPlan = Object.fromEntries(res.body.results.map((r: any) => [r.breakdown_value, r.count]))
        return byPlan.enterprise === 2 ? byPlan : undefined
      },
      { what: 'the group breakdown with acme upgraded', timeoutMs: 20_000 },
    )
    expect(counts).toEqual({ enterprise: 2, paid: 2, $$_posthog_breakdown_null_$$: 1 })

    const unindexed = await trend({ breakdown_type: 'group', breakdown: 'plan' })
    expect(unindexed.status).toBe(400)
    expect(unindexed.body.attr).toBe('query__breakdownFilter__breakdown_group_type_index')
    const notGroup = await trend({ breakdown: 'plan', breakdown_group_type_index: 0 })
    expect(notGroup.status).toBe(400)
    expect(notGroup.body.attr).toBe('query__breakdownFilter__breakdown_group_type_index')
  })
})

describe('HogQL and EventsQuery through the endpoint', () => {
  it('answers a HogQL aggregate over the project’s events, and refuses what the allow-list does not hold', async () => {
    const byEvent = new Map<string, number>()
    for (const e of project.sent) byEvent.set(e.event, (byEvent.get(e.event) ?? 0) + 1)
    const answer = await project.query({
      query: { kind: 'HogQLQuery', query: 'SELECT event, count() FROM events GROUP BY event ORDER BY event' },
    })
    expect(answer.status).toBe(200)
    expect(Object.fromEntries(answer.body.results.map(([event, n]: [string, number]) => [event, Number(n)]))).toEqual(
      Object.fromEntries(byEvent),
    )
    expect(answer.body.columns).toHaveLength(2)
    const refused = await project.query({ query: { kind: 'HogQLQuery', query: 'SELECT * FROM system.tables' } })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ type: 'validation_error' })
    const listed = await project.query({
      // EventsQuery looks back a day unless told otherwise, as PostHog's does: these events are from 2025.
      query: { kind: 'EventsQuery', select: ['event', 'distinct_id'], event: project.sent[0]!.event, after: '2025-01-01', limit: 5 },
    })
    expect(listed.status).toBe(200)
    expect(listed.body.results).toHaveLength(5)
    for (const [event] of listed.body.results as Array<[string, string]>) expect(event).toBe(project.sent[0]!.event)
  })
})
