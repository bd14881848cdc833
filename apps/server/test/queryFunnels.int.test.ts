import type { TestAccount } from '@burrow/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  daysBetween,
  identifies,
  localDay,
  makeEvents,
  personOf,
  postQuery,
  sendAll,
  setTimezone,
  TZ,
  type SentEvent,
} from './queryFixture'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
})

const FROM = '2025-10-25'
const TO = '2025-11-08'
const DAYS = daysBetween(FROM, TO)
let sent: SentEvent[]

beforeAll(async () => {
  await setTimezone(service, account, TZ)
  const events = makeEvents(11, 1500, Date.UTC(2025, 9, 20), Date.UTC(2025, 10, 12))
  sent = [...events, ...identifies(Date.UTC(2025, 10, 1, 12))]
  await sendAll(service, account, sent)
}, 180_000)

type Step = (e: SentEvent) => boolean

/** Linear interpolation between closest ranks, as numpy's default percentile. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (sorted.length - 1) / 2
  const lo = Math.floor(at)
  return sorted[lo]! + (sorted[Math.ceil(at)]! - sorted[lo]!) * (at - lo)
}

/**
 * An ordered funnel by brute force: for every person and every first-step event, every way of
 * picking later steps in order within the window; the person counts with the path that reaches
 * furthest (the earliest such start, then the earliest times).
 */
function oracle(steps: Step[], windowSeconds: number, include: (person: string) => boolean = () => true) {
  const byPerson = new Map<string, SentEvent[]>()
  for (const e of sent) {
    if (!DAYS.includes(localDay(e.timestamp, TZ))) continue
    const person = personOf(e.distinct_id)
    if (!include(person)) continue
    if (!byPerson.has(person)) byPerson.set(person, [])
    byPerson.get(person)!.push(e)
  }
  const best: number[][] = []
  for (const events of byPerson.values()) {
    const times = (step: Step) => events.filter(step).map((e) => Date.parse(e.timestamp) / 1000)
    const stepTimes = steps.map(times)
    let personBest: number[] = []
    for (const t0 of [...stepTimes[0]!].sort((a, b) => a - b)) {
      // Depth-first over every choice of later events.
      const search = (path: number[]): number[] => {
        const i = path.length
        if (i === steps.length) return path
        let longest = path
        for (const t of stepTimes[i]!.filter((t) => t >= path[i - 1]! && t <= t0 + windowSeconds).sort((a, b) => a - b)) {
          const found = search([...path, t])
          if (found.length > longest.length) longest = found
          if (longest.length === steps.length) break
        }
        return longest
      }
      const path = search([t0])
      if (path.length > personBest.length) personBest = path
    }
    if (personBest.length > 0) best.push(personBest)
  }
  return steps.map((_, i) => {
    const reached = best.filter((p) => p.length > i)
    const took = reached.map((p) => p[i]! - p[i - 1]!)
    return {
      count: reached.length,
      average: i === 0 || took.length === 0 ? null : took.reduce((a, b) => a + b, 0) / took.length,
      median: i === 0 || took.length === 0 ? null : median(took),
    }
  })
}

const is = (name: string) => (e: SentEvent) => e.event === name

describe('FunnelsQuery', () => {
  it('counts the persons reaching each step in order within the window, and the time each step took', async () => {
    const res = await postQuery(service, account, {
      query: {
        kind: 'FunnelsQuery',
        dateRange: { date_from: FROM, date_to: TO },
        series: [
          { kind: 'EventsNode', event: 'signup' },
          { kind: 'EventsNode', event: 'pageview', custom_name: 'Looked' },
          { kind: 'EventsNode', event: 'purchase', properties: [{ key: 'amount', operator: 'gt', value: 30, type: 'event' }] },
        ],
        funnelsFilter: { funnelWindowInterval: 6, funnelWindowIntervalUnit: 'hour' },
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const expected = oracle([is('signup'), is('pageview'), (e) => is('purchase')(e) && Number(e.properties.amount) > 30], 6 * 3600)
    expect(res.body.results.map((s: any) => s.count)).toEqual(expected.map((s) => s.count))
    expect(expected[2]!.count).toBeGreaterThan(0)
    res.body.results.forEach((step: any, i: number) => {
      expect(step).toMatchObject({ order: i, type: 'events', people: [] })
      if (expected[i]!.average === null) expect(step.average_conversion_time).toBeNull()
      else expect(step.average_conversion_time).toBeCloseTo(expected[i]!.average, 2)
      if (expected[i]!.median === null) expect(step.median_conversion_time).toBeNull()
      else expect(step.median_conversion_time).toBeCloseTo(expected[i]!.median, 2)
    })
    expect(res.body.results[1]).toMatchObject({ name: 'pageview', custom_name: 'Looked', action_id: 'pageview' })
  })

  it("breaks down by the event property of each person's first first step, most persons first", async () => {
    const res = await postQuery(service, account, {
      query: {
        kind: 'FunnelsQuery',
        dateRange: { date_from: FROM, date_to: TO },
        series: [
          { kind: 'EventsNode', event: 'signup' },
          { kind: 'EventsNode', event: 'purchase' },
        ],
        breakdownFilter: { breakdown_type: 'event', breakdown: 'plan' },
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const planOf = (e: SentEvent) => {
      const plan = e.properties.plan as string | undefined
      return plan === undefined || plan === '' ? '$$_posthog_breakdown_null_$$' : plan
    }
    const firstTouch = new Map<string, string>()
    const firsts = sent
      .filter((e) => e.event === 'signup' && DAYS.includes(localDay(e.timestamp, TZ)))
      .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp))
    for (const e of firsts) if (!firstTouch.has(personOf(e.distinct_id))) firstTouch.set(personOf(e.distinct_id), planOf(e))
    const values = [...new Set(firstTouch.values())]
    const expected = values
      .map((value) => ({
        value,
        counts: oracle([is('signup'), is('purchase')], 14 * 86_400, (p) => firstTouch.get(p) === value).map((s) => s.count),
      }))
      .sort((a, b) => b.counts[0]! - a.counts[0]! || a.value.localeCompare(b.value))
    expect(res.body.results.map((steps: any[]) => ({ value: steps[0].breakdown_value[0], counts: steps.map((s) => s.count) }))).toEqual(
      expected,
    )
  })

  it('counts a merged person once across its distinct ids', async () => {
    const res = await postQuery(service, account, {
      query: {
        kind: 'FunnelsQuery',
        dateRange: { date_from: FROM, date_to: TO },
        series: [
          { kind: 'EventsNode', event: 'pageview' },
          { kind: 'EventsNode', event: 'purchase' },
        ],
      },
    })
    expect(res.status).toBe(200)
    const expected = oracle([is('pageview'), is('purchase')], 14 * 86_400)
    expect(res.body.results.map((s: any) => s.count)).toEqual(expected.map((s) => s.count))
  })

  it.each([
    [{ funnelOrderType: 'strict' }, 'funnelOrderType'],
    [{ funnelVizType: 'trends' }, 'query__funnelsFilter__funnelVizType'],
  ])('answers 400 for what it does not compute %#', async (funnelsFilter, attr) => {
    const res = await postQuery(service, account, {
      query: { kind: 'FunnelsQuery', series: [{ event: 'a' }, { event: 'b' }], funnelsFilter },
    })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr })
  })

  it('needs two steps at least', async () => {
    const res = await postQuery(service, account, { query: { kind: 'FunnelsQuery', series: [{ event: 'a' }] } })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ attr: 'query__series' })
  })
})
