import { describe, expect, it } from 'vitest'
import { daysBetween, identifies, localDay, makeEvents, personOf, sendAll, TZ, type SentEvent, useQueryProject } from './queryFixture'

const FROM = '2025-10-25'
const TO = '2025-11-08'
const DAYS = daysBetween(FROM, TO)

const project = useQueryProject(async (service, account) => {
  const events = makeEvents(11, 1500, Date.UTC(2025, 9, 20), Date.UTC(2025, 10, 12))
  const sent = [...events, ...identifies(Date.UTC(2025, 10, 1, 12)), ...scenarios(Date.UTC(2025, 10, 3, 15))]
  await sendAll(service, account, sent)
  return sent
})

type Step = (e: SentEvent) => boolean

/** Linear interpolation between closest ranks, as numpy's default percentile. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (sorted.length - 1) / 2
  const lo = Math.floor(at)
  return sorted[lo]! + (sorted[Math.ceil(at)]! - sorted[lo]!) * (at - lo)
}

/** The events of each person within the date range, in time order. */
function eventsByPerson(include: (person: string) => boolean = () => true): Map<string, SentEvent[]> {
  const byPerson = new Map<string, SentEvent[]>()
  for (const e of project.sent) {
    if (!DAYS.includes(localDay(e.timestamp, TZ))) continue
    const person = personOf(e.distinct_id)
    if (!include(person)) continue
    if (!byPerson.has(person)) byPerson.set(person, [])
    byPerson.get(person)!.push(e)
  }
  for (const events of byPerson.values()) events.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp))
  return byPerson
}

const seconds = (e: SentEvent) => Date.parse(e.timestamp) / 1000

/** What each counted person reached: the step times of its counted attempt. */
type Paths = number[][]

/** PostHog's step answer from the counted attempts: conversion times only where they took time. */
function aggregate(paths: Paths, steps: number) {
  return Array.from({ length: steps }, (_, i) => {
    const reached = paths.filter((p) => p.length > i)
    const took = reached.map((p) => p[i]! - p[i - 1]!).filter((t) => t > 0)
    return {
      count: reached.length,
      average: i === 0 || took.length === 0 ? null : took.reduce((a, b) => a + b, 0) / took.length,
      median: i === 0 || took.length === 0 ? null : median(took),
    }
  })
}

/**
 * An ordered funnel by brute force: for every person and every first-step event, every way of
 * picking later steps in order within the window; the person counts with the path that reaches
 * furthest (the earliest such start, then the earliest times).
 */
function orderedPaths(steps: Step[], windowSeconds: number, include: (person: string) => boolean = () => true): Paths {
  const best: number[][] = []
  for (const events of eventsByPerson(include).values()) {
    const times = (step: Step) => events.filter(step).map(seconds)
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
  return best
}

function oracle(steps: Step[], windowSeconds: number, include: (person: string) => boolean = () => true) {
  return aggregate(orderedPaths(steps, windowSeconds, include), steps.length)
}

/** One event as PostHog's walk sees it: its steps from 1, and -(i + 1) where it is an exclusion guarding step i. */
interface Walked {
  t: number
  steps: number[]
  /** The event's breakdown value, where the walk looks at it. */
  value?: string
}

interface Exclusion {
  matches: Step
  from: number
  to: number
}

/** Arrays compared element by element, a prefix first, as ClickHouse orders them. */
function compareArrays(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return a.length - b.length
}

/**
 * A person's events numbered for the walk, in time order: those that are a step or an exclusion,
 * or every event (strict funnels); `value` gives each its breakdown value.
 */
function numberedEvents(
  events: SentEvent[],
  steps: Step[],
  exclusions: Exclusion[],
  everyEvent: boolean,
  value?: (e: SentEvent) => string,
): Array<Walked & { event: SentEvent }> {
  const walked = events.map((e) => ({
    event: e,
    t: seconds(e),
    steps: [
      ...steps.flatMap((step, i) => (step(e) ? [i + 1] : [])),
      ...steps.flatMap((_, i) => (i > 0 && exclusions.some((x) => x.from < i && i <= x.to && x.matches(e)) ? [-(i + 1)] : [])),
    ],
    ...(value === undefined ? {} : { value: value(e) }),
  }))
  const kept = everyEvent ? walked : walked.filter((w) => w.steps.length > 0)
  return kept.sort((a, b) => a.t - b.t || compareArrays(a.steps, b.steps))
}

function walkedEvents(
  events: SentEvent[],
  steps: Step[],
  exclusions: Exclusion[],
  everyEvent: boolean,
  value?: (e: SentEvent) => string,
): Walked[] {
  const kept = numberedEvents(events, steps, exclusions, everyEvent, value)
  // PostHog drops an event lying strictly between two events of the same steps (and value).
  return kept.filter((x, i) => {
    const before = kept[(i - 1 + kept.length) % kept.length]!
    const after = kept[(i + 1) % kept.length]!
    const same = (y: Walked) => y.steps.join() === x.steps.join() && y.value === x.value
    return !(x.steps.length <= 1 && same(before) && same(after) && x.t > before.t && x.t < after.t)
  })
}

interface Attempt {
  start: number
  excluded: boolean
  times: number[]
  ids: number[]
}

/** PostHog's walk of an ordered or strict funnel over one person's events. */
function walkOrdered(events: Walked[], steps: number, windowSeconds: number, strict: boolean): Attempt & { level: number } {
  const none = (): Attempt => ({ start: 0, excluded: false, times: [], ids: [] })
  const entered: Attempt[] = Array.from({ length: steps + 1 }, none)
  let best = { level: 0, attempt: none() }
  const apply = (t: number, s: number, id: number, simultaneous: boolean) => {
    const k = Math.abs(s)
    const previous = k === 1 ? { start: t, excluded: false, times: [], ids: [] } : entered[k - 1]!
    if (previous.start === 0 || t - previous.start > windowSeconds) return
    if (entered[k]!.start === previous.start && entered[k]!.start !== 0) return
    if (s < 0) {
      if (previous.excluded) return
      entered[k - 1] = { ...entered[k - 1]!, excluded: true }
      if (best.level === k - 1 && t - best.attempt.start <= windowSeconds)
        best = { level: best.level, attempt: { ...best.attempt, excluded: true } }
      return
    }
    if (simultaneous && previous.ids.includes(id)) return
    const next = { start: previous.start, excluded: previous.excluded, times: [...previous.times, t], ids: [...previous.ids, id] }
    if (!previous.excluded) entered[k] = next
    if (k > best.level || (k === best.level && best.attempt.excluded)) best = { level: k, attempt: next }
  }
  let i = 0
  while (i < events.length) {
    let j = i
    while (j < events.length && events[j]!.t === events[i]!.t) j++
    const group = events.slice(i, j).map((e, g) => ({ ...e, id: i + g + 1 }))
    if (group.every((e) => e.steps.join() === group[0]!.steps.join())) {
      for (const e of group) {
        for (const s of [...e.steps].reverse()) apply(e.t, s, e.id, false)
        if (strict) for (let k = 1; k <= steps; k++) if (!e.steps.includes(k)) entered[k] = none()
      }
    } else {
      const items = group.flatMap((e) => e.steps.filter((s) => s > 0).map((s) => ({ e, s })))
      items.sort((a, b) => a.s - b.s || a.e.id - b.e.id)
      for (const { e, s } of items) apply(e.t, s, e.id, true)
    }
    i = j
  }
  return { level: best.level, ...best.attempt }
}

/**
 * PostHog's walk of an unordered funnel over one person's events, step by step as it is written.
 * `admits` says whether an event may join an attempt holding that many steps (breakdown attribution).
 */
function walkUnordered(
  events: Walked[],
  steps: number,
  windowSeconds: number,
  admits: (x: Walked, held: number) => boolean = () => true,
): { level: number; times: number[] } {
  let held: number[][] = Array.from({ length: steps }, () => [])
  let best = { level: 0, times: [] as number[] }
  const count = () => held.filter((d) => d.length > 0).length
  const record = () => {
    if (count() > best.level) best = { level: count(), times: held.flatMap((d) => d.slice(0, 1)).sort((a, b) => a - b) }
  }
  for (const [i, x] of events.entries()) {
    for (;;) {
      let oldest = -1
      for (let k = 0; k < steps; k++) if (held[k]!.length > 0 && (oldest === -1 || held[k]![0]! < held[oldest]![0]!)) oldest = k
      if (oldest === -1) break
      if (count() < steps && held[oldest]![0]! + windowSeconds >= x.t) break
      record()
      held[oldest]!.shift()
    }
    if (x.steps.every((s) => s < 0)) held = Array.from({ length: steps }, () => [])
    else {
      const newest = (s: number) => held[s - 1]!.at(-1) ?? 0
      let chosen = 0
      for (const s of x.steps.filter((s) => s > 0)) if (chosen === 0 || newest(s) < newest(chosen)) chosen = s
      if (admits(x, count())) held[chosen - 1]!.push(x.t)
    }
    if (best.level === steps) break
    if (i === events.length - 1) record()
  }
  return best
}

/** The counted attempts of strict and unordered funnels and funnels with exclusions. */
function walkedPaths(options: {
  steps: Step[]
  windowSeconds: number
  order: 'ordered' | 'strict' | 'unordered'
  exclusions?: Exclusion[]
}): Paths {
  const { steps, windowSeconds, order } = options
  const paths: Paths = []
  for (const events of eventsByPerson().values()) {
    const walked = walkedEvents(events, steps, options.exclusions ?? [], order === 'strict')
    const starts = order === 'unordered' ? walked.some((w) => w.steps.some((s) => s > 0)) : walked.some((w) => w.steps.includes(1))
    if (!starts) continue
    if (order === 'unordered') {
      const result = walkUnordered(walked, steps.length, windowSeconds)
      if (result.level > 0) paths.push(result.times)
    } else {
      const result = walkOrdered(walked, steps.length, windowSeconds, order === 'strict')
      if (result.level > 0 && !result.excluded) paths.push(result.times)
    }
  }
  return paths
}

/** An event of a funnel trends walk: numbered as for the steps walk, with the day it falls in. */
type Dated = Walked & { day: string }

/** What one person counts for in funnel trends: per day entered, 1 converted or -1 entered only. */
type DayResults = Map<string, 1 | -1>

/**
 * PostHog's funnel trends walk of an ordered or strict funnel over one person's events (every
 * step numbered), as it is written: per day entered, when the attempt entered each step, which
 * steps an exclusion struck, and the furthest step with how exclusions stand against it.
 */
function walkOrderedTrends(
  events: Dated[],
  options: { steps: number; toStep: number; fromStep: number; windowSeconds: number; strict: boolean },
): DayResults {
  const { steps, toStep, fromStep, windowSeconds } = options
  interface Day {
    entered: Array<{ t: number; excluded: boolean }>
    level: number
    levelT: number
    levelExcluded: 'not' | 'partial' | 'full'
  }
  const open = new Map<string, Day>()
  const results: DayResults = new Map()
  const unset = () => ({ t: 0, excluded: false })
  for (const x of events) {
    for (const s of [...x.steps].reverse()) {
      const k = Math.abs(s)
      if (k === 1) {
        if (results.has(x.day)) continue
        const day = open.get(x.day)
        if (day === undefined || (day.level === 1 && day.levelExcluded !== 'not')) {
          const entered = Array.from({ length: steps + 1 }, unset)
          entered[1] = { t: x.t, excluded: false }
          open.set(x.day, { entered, level: 1, levelT: x.t, levelExcluded: 'not' })
        } else day.entered[1] = { t: x.t, excluded: false }
        continue
      }
      for (const [key, day] of open) {
        const previous = day.entered[k - 1]!
        if (previous.t === 0 || x.t - previous.t > windowSeconds || day.entered[k]!.t === previous.t) continue
        if (s < 0) {
          if (previous.excluded) continue
          day.entered[k - 1] = { ...previous, excluded: true }
          if (day.level === k - 1 && x.t - day.levelT <= windowSeconds) day.levelExcluded = 'partial'
          continue
        }
        if (!previous.excluded) day.entered[k] = { t: previous.t, excluded: false }
        if (day.entered[toStep]!.t !== 0) {
          results.set(key, 1)
          open.delete(key)
        } else if (k > day.level || (k === day.level && day.levelExcluded === 'partial')) {
          Object.assign(day, { level: k, levelT: x.t, levelExcluded: previous.excluded ? 'full' : 'not' })
        }
      }
    }
    if (options.strict) {
      for (const day of open.values()) for (let i = 1; i <= steps; i++) if (!x.steps.includes(i)) day.entered[i] = unset()
    }
  }
  if (![...open.values()].some((day) => day.levelExcluded === 'full')) {
    for (const [key, day] of open) if (day.level >= fromStep && day.levelExcluded !== 'partial') results.set(key, -1)
  }
  return results
}

/**
 * PostHog's funnel trends walk of an unordered funnel over one person's events, as it is written:
 * the events held per step; each leaving one (out of the window, every step held, or after the
 * last event) credits its day with the steps held.
 */
function walkUnorderedTrends(
  events: Dated[],
  options: { steps: number; toStep: number; fromStep: number; windowSeconds: number },
  admits: (x: Walked, held: number) => boolean = () => true,
): DayResults {
  const { steps, toStep, fromStep, windowSeconds } = options
  let held: Dated[][] = Array.from({ length: steps }, () => [])
  const credited = new Map<string, number>()
  const count = () => held.filter((d) => d.length > 0).length
  const leave = (t: number, last: boolean) => {
    for (;;) {
      let oldest = -1
      for (let k = 0; k < steps; k++) if (held[k]!.length > 0 && (oldest === -1 || held[k]![0]!.t < held[oldest]![0]!.t)) oldest = k
      if (oldest === -1) return
      const front = held[oldest]![0]!
      if (!(last || count() >= steps || front.t + windowSeconds < t)) return
      if (count() > (credited.get(front.day) ?? 0)) credited.set(front.day, count())
      held[oldest]!.shift()
    }
  }
  for (const [i, x] of events.entries()) {
    leave(x.t, false)
    if (x.steps.every((s) => s < 0)) held = Array.from({ length: steps }, () => [])
    else {
      const newest = (s: number) => held[s - 1]!.at(-1)?.t ?? 0
      let chosen = 0
      for (const s of x.steps.filter((s) => s > 0)) if (chosen === 0 || newest(s) < newest(chosen)) chosen = s
      if (admits(x, count())) held[chosen - 1]!.push(x)
    }
    if (i === events.length - 1) leave(x.t, true)
  }
  const results: DayResults = new Map()
  for (const [day, level] of credited) if (level >= fromStep) results.set(day, level >= toStep ? 1 : -1)
  return results
}

/** Per day in the range: how many persons entered, and how many of those converted. */
function perDay(results: Iterable<DayResults>) {
  const days = new Map(DAYS.map((d) => [d, { entered: 0, converted: 0 }]))
  for (const person of results) {
    for (const [day, success] of person) {
      const counts = days.get(day)!
      counts.entered++
      if (success === 1) counts.converted++
    }
  }
  return DAYS.map((d) => days.get(d)!)
}

interface TrendsWalk {
  steps: Step[]
  order: 'ordered' | 'strict' | 'unordered'
  windowSeconds: number
  exclusions?: Exclusion[]
  /** funnelFromStep and funnelToStep. */
  from?: number
  to?: number
}

/** One person's funnel trends answer, its events walked as PostHog walks them (not thinned). */
function personTrends(
  events: SentEvent[],
  walk: TrendsWalk,
  value?: (e: SentEvent) => string,
  admits?: (x: Walked, held: number) => boolean,
) {
  const n = walk.steps.length
  const dated = numberedEvents(events, walk.steps, walk.exclusions ?? [], walk.order === 'strict', value).map((w) => ({
    ...w,
    day: localDay(w.event.timestamp, TZ),
  }))
  const options = { steps: n, toStep: (walk.to ?? n - 1) + 1, fromStep: (walk.from ?? 0) + 1, windowSeconds: walk.windowSeconds }
  return walk.order === 'unordered'
    ? walkUnorderedTrends(dated, options, admits)
    : walkOrderedTrends(dated, { ...options, strict: walk.order === 'strict' })
}

/** PostHog's time to convert histogram over the counted attempts. */
function histogram(paths: Paths, from: number, to: number, binCount?: number) {
  const timings = paths.filter((p) => p.length > to).map((p) => p[to]! - p[from]!)
  const bins = binCount === undefined ? Math.min(60, Math.max(1, Math.ceil(Math.cbrt(timings.length)))) : binCount
  const min = timings.length === 0 ? 0 : Math.floor(Math.min(...timings))
  const max = timings.length === 0 ? 0 : Math.ceil(Math.max(...timings))
  const width = Math.ceil((max - min) / bins) > 0 ? Math.ceil((max - min) / bins) : 60
  const counts = Array.from({ length: bins + 1 }, () => 0)
  for (const t of timings) counts[Math.floor((t - min) / width)]! += 1
  return {
    bins: counts.map((count, k) => [min + k * width, count]),
    average: timings.length === 0 ? null : timings.reduce((a, b) => a + b, 0) / timings.length,
    median: timings.length === 0 ? null : median(timings),
  }
}

/**
 * Persons made for the rules the random events seldom show, one behaviour each, a minute apart:
 * `f_a`, `f_b` are the steps, `f_x` the exclusion, `f_other` any other event.
 */
function scenarios(at: number): SentEvent[] {
  const people: Record<string, string[]> = {
    'f-consecutive': ['f_a', 'f_b'],
    'f-interleaved': ['f_a', 'f_other', 'f_b'],
    'f-repeated': ['f_a', 'f_a', 'f_b'],
    'f-reversed': ['f_b', 'f_a'],
    'f-excluded-between': ['f_a', 'f_x', 'f_b'],
    'f-excluded-before': ['f_x', 'f_a', 'f_b'],
    'f-excluded-after': ['f_a', 'f_b', 'f_x'],
  }
  const sequences = Object.entries(people).flatMap(([person, events], p) =>
    events.map((event, i) => ({
      event,
      distinct_id: person,
      timestamp: new Date(at + p * 3_600_000 + i * 60_000).toISOString(),
      properties: {},
    })),
  )
  // Both steps at one instant: taken in step order, in every kind of funnel, taking no time.
  const instant = new Date(at - 3_600_000).toISOString()
  // A first step stored without a person, by an id that has one: it counts for that person, as
  // the merged ids' events (stored with the persons merged away) count for their users.
  const personless = [
    { event: 'f_a', properties: { $process_person_profile: false } },
    { event: 'f_b', properties: {} },
  ].map((e, i) => ({ ...e, distinct_id: 'f-personless', timestamp: new Date(at - 2 * 3_600_000 + i * 60_000).toISOString() }))
  return [
    ...sequences,
    ...['f_b', 'f_a'].map((event) => ({ event, distinct_id: 'f-simultaneous', timestamp: instant, properties: {} })),
    ...personless,
  ]
}

const is = (name: string) => (e: SentEvent) => e.event === name

describe('FunnelsQuery', () => {
  it('counts the persons reaching each step in order within the window, and the time each step took', async () => {
    const res = await project.query({
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

  /** A funnel signup → purchase broken down by plan, attributed as `funnelsFilter` says. */
  const planFunnel = (funnelsFilter: Record<string, unknown> = {}, breakdownFilter: Record<string, unknown> = {}) =>
    project.query({
      query: {
        kind: 'FunnelsQuery',
        dateRange: { date_from: FROM, date_to: TO },
        series: [
          { kind: 'EventsNode', event: 'signup' },
          { kind: 'EventsNode', event: 'purchase' },
        ],
        breakdownFilter: { breakdown_type: 'event', breakdown: 'plan', ...breakdownFilter },
        funnelsFilter,
      },
    })
  /** An event's plan as PostHog's funnels break down by it: '' where it has none. */
  const planOf = (e: SentEvent) => (typeof e.properties.plan === 'string' ? e.properties.plan : '')
  const isStep = (e: SentEvent) => e.event === 'signup' || e.event === 'purchase'
  /** ClickHouse's order of strings (bytes), which breaks ties between equal counts. */
  const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  /** Furthest first: most persons at the last step, then at the first; then by value. */
  const furthestFirst = (a: { value: string; counts: number[] }, b: { value: string; counts: number[] }) =>
    b.counts[1]! - a.counts[1]! || b.counts[0]! - a.counts[0]! || byBytes(a.value, b.value)
  const answered = (body: any) =>
    body.results.map((steps: any[]) => ({ value: steps[0].breakdown_value[0] as string, counts: steps.map((s) => s.count as number) }))

  /** An event's value of `key` as PostHog's funnels break down by it: '' where it has none (or null), other than strings as JSON. */
  const valueOf = (key: string) => (e: SentEvent) => {
    const v = e.properties[key]
    return v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v)
  }

  // $browser has a column of its own: read from it, the values must be those read from the JSON.
  it.each([
    ['first_touch', 'plan'],
    ['last_touch', 'plan'],
    ['first_touch', '$browser'],
  ] as const)("breaks down by the value of each person's %s event with a %s, furthest first", async (kind, key) => {
    const res = await planFunnel(kind === 'first_touch' ? {} : { breakdownAttributionType: kind }, { breakdown: key })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    // The value of the person's earliest (latest) step event that has one, '' when none has.
    const touched = new Map<string, string>()
    for (const [person, events] of eventsByPerson()) {
      const withValue = events.filter((e) => isStep(e) && valueOf(key)(e) !== '')
      const chosen = kind === 'first_touch' ? withValue[0] : withValue.at(-1)
      touched.set(person, chosen ? valueOf(key)(chosen) : '')
    }
    const expected = [...new Set(touched.values())]
      .map((value) => ({
        value,
        counts: oracle([is('signup'), is('purchase')], 14 * 86_400, (p) => touched.get(p) === value).map((s) => s.count),
      }))
      .filter((row) => row.counts[0]! > 0)
      .sort(furthestFirst)
    expect(answered(res.body)).toEqual(expected)
  })

  it('breaks down by a HogQL expression over each event as by the property it reads, and by a computed value', async () => {
    const byProperty = await planFunnel({}, { breakdown: 'plan', breakdown_limit: 50 })
    const byExpression = await planFunnel({}, { breakdown_type: 'hogql', breakdown: 'properties.plan', breakdown_limit: 50 })
    expect(byExpression.status, JSON.stringify(byExpression.body)).toBe(200)
    expect(answered(byExpression.body)).toEqual(answered(byProperty.body))
    // A value computed from the event: each person under the first step event's.
    const computed = await planFunnel({}, { breakdown_type: 'hogql', breakdown: "if(properties.plan = 'pro', 'paying', 'other')" })
    expect(computed.status, JSON.stringify(computed.body)).toBe(200)
    const touched = new Map<string, string>()
    for (const [person, events] of eventsByPerson()) {
      const first = events.find(isStep)
      if (first) touched.set(person, planOf(first) === 'pro' ? 'paying' : 'other')
    }
    const expected = ['paying', 'other']
      .map((value) => ({
        value,
        counts: oracle([is('signup'), is('purchase')], 14 * 86_400, (p) => touched.get(p) === value).map((s) => s.count),
      }))
      .filter((row) => row.counts[0]! > 0)
      .sort(furthestFirst)
    expect(answered(computed.body)).toEqual(expected)
    const refused = await planFunnel({}, { breakdown_type: 'hogql', breakdown: 'count()' })
    expect(refused.status).toBe(400)
    expect(refused.body.attr).toBe('query__breakdownFilter__breakdown')
  })

  it("counts a person under every plan its events have, each walked over that plan's events (all_events)", async () => {
    const res = await planFunnel({ breakdownAttributionType: 'all_events' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const plans = [...new Set(project.sent.filter(isStep).map(planOf))]
    const expected = plans
      .map((value) => {
        const withPlan = (step: Step) => (e: SentEvent) => step(e) && planOf(e) === value
        return { value, counts: oracle([withPlan(is('signup')), withPlan(is('purchase'))], 14 * 86_400).map((s) => s.count) }
      })
      .filter((row) => row.counts[0]! > 0)
      .sort(furthestFirst)
    expect(answered(res.body)).toEqual(expected)
    // A person with signups of two plans is in both rows.
    const total = expected.reduce((sum, row) => sum + row.counts[0]!, 0)
    expect(total).toBeGreaterThan(oracle([is('signup'), is('purchase')], 14 * 86_400)[0]!.count)
  })

  it('counts a person under each plan of its purchases, the purchase step taking only events of that plan (step 1)', async () => {
    const res = await planFunnel({ breakdownAttributionType: 'step', breakdownAttributionValue: 1 })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const purchasePlans = new Map<string, Set<string>>()
    for (const [person, events] of eventsByPerson()) purchasePlans.set(person, new Set(events.filter(is('purchase')).map(planOf)))
    const plans = [...new Set([...purchasePlans.values()].flatMap((set) => [...set]))]
    const expected = plans
      .map((value) => ({
        value,
        counts: oracle(
          [is('signup'), (e: SentEvent) => is('purchase')(e) && planOf(e) === value],
          14 * 86_400,
          (p) => purchasePlans.get(p)?.has(value) ?? false,
        ).map((s) => s.count),
      }))
      .filter((row) => row.counts[0]! > 0)
      .sort(furthestFirst)
    expect(answered(res.body)).toEqual(expected)
  })

  it('keeps the breakdown_limit values that reached furthest and puts the rest in Other', async () => {
    const res = await planFunnel({}, { breakdown_limit: 2 })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const full = answered((await planFunnel()).body) as Array<{ value: string; counts: number[] }>
    const kept = full.slice(0, 2)
    const rest = full.slice(2)
    const other = { value: 'Other', counts: [0, 1].map((i) => rest.reduce((sum, row) => sum + row.counts[i]!, 0)) }
    // Other takes its place among the rows by its own counts, as PostHog orders them.
    expect(answered(res.body)).toEqual([...kept, other].sort(furthestFirst))
    expect(res.body.results.find((steps: any[]) => steps[0].breakdown[0] === 'Other')).toBeDefined()
  })

  /**
   * Funnel trends by brute force: a person enters in each day it has a first-step event, and
   * converts there when some first-step event of that day starts a chain of the later steps in
   * order within the window. Counts per day of [entered, converted].
   */
  function trendsOracle(steps: Step[], windowSeconds: number, include: (person: string) => boolean = () => true) {
    const perDay = new Map(DAYS.map((d) => [d, { entered: 0, converted: 0 }]))
    for (const [person, events] of eventsByPerson()) {
      if (!include(person)) continue
      const times = steps.map((step) => events.filter(step).map(seconds))
      const starts = events.filter(steps[0]!)
      for (const day of new Set(starts.map((e) => localDay(e.timestamp, TZ)))) {
        const chains = starts
          .filter((e) => localDay(e.timestamp, TZ) === day)
          .some((e) => {
            const t0 = seconds(e)
            let at = t0
            for (const stepTimes of times.slice(1)) {
              const next = stepTimes.filter((t) => t >= at && t <= t0 + windowSeconds).sort((a, b) => a - b)[0]
              if (next === undefined) return false
              at = next
            }
            return true
          })
        const counts = perDay.get(day)!
        counts.entered++
        if (chains) counts.converted++
      }
    }
    return DAYS.map((d) => perDay.get(d)!)
  }
  const rateOf = ({ entered, converted }: { entered: number; converted: number }) => (entered > 0 ? (converted / entered) * 100 : 0)

  it.each([
    [['signup', 'purchase'], 3],
    [['pageview', 'signup', 'purchase'], 14],
  ])('answers funnel trends %j (window %i days): per day, the share of persons entering that converted', async (names, windowDays) => {
    const res = await project.query({
      query: {
        kind: 'FunnelsQuery',
        dateRange: { date_from: FROM, date_to: TO },
        interval: 'day',
        series: names.map((event) => ({ kind: 'EventsNode', event })),
        funnelsFilter: { funnelVizType: 'trends', funnelWindowInterval: windowDays, funnelWindowIntervalUnit: 'day' },
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.results).toHaveLength(1)
    const [row] = res.body.results
    expect(row.days).toEqual(DAYS)
    expect(row.count).toBe(DAYS.length)
    expect(row.labels).toHaveLength(DAYS.length)
    const expected = trendsOracle(names.map(is), windowDays * 86_400)
    expect(expected.some((d) => d.converted > 0 && d.converted < d.entered)).toBe(true)
    row.data.forEach((rate: number, i: number) => expect(rate, DAYS[i]).toBeCloseTo(rateOf(expected[i]!), 2))
  })

  it('breaks funnel trends down by the first-touch plan, one row per plan with every day, in order of the plan', async () => {
    const res = await planFunnel({ funnelVizType: 'trends' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const touched = new Map<string, string>()
    for (const [person, events] of eventsByPerson())
      touched.set(person, planOf(events.filter((e) => isStep(e) && planOf(e) !== '')[0] ?? ({ properties: {} } as SentEvent)))
    const plans = [...new Set(touched.values())].filter((plan) =>
      trendsOracle([is('signup'), is('purchase')], 14 * 86_400, (p) => touched.get(p) === plan).some((d) => d.entered > 0),
    )
    expect(res.body.results.map((r: any) => r.breakdown_value)).toEqual(plans.sort(byBytes).map((p) => [p]))
    for (const row of res.body.results) {
      const expected = trendsOracle([is('signup'), is('purchase')], 14 * 86_400, (p) => touched.get(p) === row.breakdown_value[0])
      expect(row.days).toEqual(DAYS)
      row.data.forEach((rate: number, i: number) => expect(rate).toBeCloseTo(rateOf(expected[i]!), 2))
    }
  })

  it('walks funnel trends as the brute force counts them when nothing is excluded (the walk oracle checked)', () => {
    for (const [names, windowDays] of [
      [['signup', 'purchase'], 3],
      [['pageview', 'signup', 'purchase'], 14],
    ] as const) {
      const walk: TrendsWalk = { steps: names.map(is), order: 'ordered', windowSeconds: windowDays * 86_400 }
      const walked = perDay([...eventsByPerson().values()].map((events) => personTrends(events, walk)))
      expect(walked).toEqual(trendsOracle(names.map(is), windowDays * 86_400))
    }
  })

  const chrome = { key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }
  const firefox = { key: '$browser', value: 'Firefox', operator: 'exact', type: 'event' }
  const isPageviewOf = (browser: string) => (e: SentEvent) => e.event === 'pageview' && e.properties.$browser === browser
  it.each([
    { label: 'ordered, excluding pageviews', order: 'ordered', names: ['signup', 'purchase'], hours: 24, excluded: [0, 1] },
    { label: 'strict, excluding pageviews', order: 'strict', names: ['signup', 'purchase'], hours: 24, excluded: [0, 1] },
    {
      label: 'ordered to step 1, excluding pageviews',
      order: 'ordered',
      names: ['signup', 'purchase', 'signup'],
      hours: 48,
      excluded: [0, 1],
      to: 1,
    },
    {
      label: 'ordered from step 1, excluding pageviews after step 1',
      order: 'ordered',
      names: ['signup', 'purchase', 'signup'],
      hours: 72,
      excluded: [1, 2],
      from: 1,
    },
    { label: 'unordered', order: 'unordered', names: ['signup', 'purchase', 'pageview'], hours: 12 },
    { label: 'unordered from step 1', order: 'unordered', names: ['signup', 'purchase', 'pageview'], hours: 12, from: 1 },
    { label: 'unordered to step 1', order: 'unordered', names: ['signup', 'purchase', 'pageview'], hours: 12, to: 1 },
    { label: 'unordered, excluding pageviews', order: 'unordered', names: ['signup', 'purchase'], hours: 24, excluded: [0, 1] },
  ] as const)('answers funnel trends $label over random events, per day as PostHog walks them', async (c) => {
    const from = 'from' in c ? c.from : undefined
    const to = 'to' in c ? c.to : undefined
    // Pageviews excluded between these steps.
    const range = 'excluded' in c ? c.excluded : undefined
    const res = await funnel(
      c.names.map((event) => ({ kind: 'EventsNode', event })),
      {
        funnelVizType: 'trends',
        funnelOrderType: c.order,
        funnelWindowInterval: c.hours,
        funnelWindowIntervalUnit: 'hour',
        ...(range === undefined
          ? {}
          : { exclusions: [{ kind: 'EventsNode', event: 'pageview', funnelFromStep: range[0], funnelToStep: range[1] }] }),
        ...(from === undefined ? {} : { funnelFromStep: from }),
        ...(to === undefined ? {} : { funnelToStep: to }),
      },
    )
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const walk: TrendsWalk = { steps: c.names.map(is), order: c.order, windowSeconds: c.hours * 3600, from, to }
    const excluded = range === undefined ? [] : [{ matches: is('pageview'), from: range[0], to: range[1] }]
    const expected = perDay([...eventsByPerson().values()].map((events) => personTrends(events, { ...walk, exclusions: excluded })))
    expect(expected.some((d) => d.converted > 0 && d.converted < d.entered)).toBe(true)
    const [row] = res.body.results
    expect(row.days).toEqual(DAYS)
    row.data.forEach((rate: number, i: number) => expect(rate, DAYS[i]).toBeCloseTo(rateOf(expected[i]!), 2))
    if (range !== undefined) {
      // The exclusion changes the answer: the random events put pageviews inside many attempts.
      const without = perDay([...eventsByPerson().values()].map((events) => personTrends(events, walk)))
      expect(without).not.toEqual(expected)
    }
  })

  it('answers unordered funnel trends with a partial exclusion, which ends an attempt wherever it falls', async () => {
    const series = [
      { kind: 'EventsNode', event: 'signup' },
      { kind: 'EventsNode', event: 'purchase' },
      { kind: 'EventsNode', event: 'pageview', properties: [chrome] },
    ]
    const exclusions = [{ kind: 'EventsNode', event: 'pageview', properties: [firefox], funnelFromStep: 0, funnelToStep: 1 }]
    const res = await funnel(series, {
      funnelVizType: 'trends',
      funnelOrderType: 'unordered',
      exclusions,
      funnelWindowInterval: 1,
      funnelWindowIntervalUnit: 'day',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const walk: TrendsWalk = {
      steps: [is('signup'), is('purchase'), isPageviewOf('Chrome')],
      order: 'unordered',
      windowSeconds: 86_400,
      exclusions: [{ matches: isPageviewOf('Firefox'), from: 0, to: 1 }],
    }
    const expected = perDay([...eventsByPerson().values()].map((events) => personTrends(events, walk)))
    expect(expected.some((d) => d.converted > 0)).toBe(true)
    res.body.results[0].data.forEach((rate: number, i: number) => expect(rate, DAYS[i]).toBeCloseTo(rateOf(expected[i]!), 2))
  })

  /** Each person's plans as an unordered funnel signup, purchase attributes them to a step: those of any of its step events. */
  const stepPlans = () => {
    const plans = new Map<string, Set<string>>()
    for (const [person, events] of eventsByPerson()) plans.set(person, new Set(events.filter(isStep).map(planOf)))
    return plans
  }
  /** In an unordered walk for `value`, an event joining an attempt holding `step` steps must have it. */
  const admitsAt = (step: number, value: string) => (x: Walked, held: number) => held !== step || x.value === value

  it('counts a person of an unordered funnel under each plan, the first event of its attempt having that plan (step 0)', async () => {
    const res = await planFunnel({ funnelOrderType: 'unordered', breakdownAttributionType: 'step', breakdownAttributionValue: 0 })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const plans = stepPlans()
    const persons = eventsByPerson()
    const expected = [...new Set([...plans.values()].flatMap((set) => [...set]))]
      .map((value) => {
        const paths: Paths = []
        for (const [person, events] of persons) {
          if (!plans.get(person)!.has(value)) continue
          const walked = walkedEvents(events, [is('signup'), is('purchase')], [], false, planOf)
          const result = walkUnordered(walked, 2, 14 * 86_400, admitsAt(0, value))
          if (result.level > 0) paths.push(result.times)
        }
        return { value, counts: aggregate(paths, 2).map((s) => s.count) }
      })
      .filter((row) => row.counts[0]! > 0)
      .sort(furthestFirst)
    expect(answered(res.body)).toEqual(expected)
  })

  it.each([0, 1])(
    'breaks unordered funnel trends down by each plan, the event joining an attempt holding %i steps having it',
    async (step) => {
      const res = await planFunnel({
        funnelVizType: 'trends',
        funnelOrderType: 'unordered',
        breakdownAttributionType: 'step',
        breakdownAttributionValue: step,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const plans = stepPlans()
      const persons = eventsByPerson()
      const walk: TrendsWalk = { steps: [is('signup'), is('purchase')], order: 'unordered', windowSeconds: 14 * 86_400 }
      const byValue = new Map(
        [...new Set([...plans.values()].flatMap((set) => [...set]))].map((value) => [
          value,
          perDay(
            [...persons]
              .filter(([person]) => plans.get(person)!.has(value))
              .map(([, events]) => personTrends(events, walk, planOf, admitsAt(step, value))),
          ),
        ]),
      )
      const values = [...byValue].filter(([, days]) => days.some((d) => d.entered > 0)).map(([value]) => value)
      expect(res.body.results.map((r: any) => r.breakdown_value)).toEqual(values.sort(byBytes).map((v) => [v]))
      for (const row of res.body.results) {
        const expected = byValue.get(row.breakdown_value[0])!
        row.data.forEach((rate: number, i: number) => expect(rate, DAYS[i]).toBeCloseTo(rateOf(expected[i]!), 2))
      }
    },
  )

  it('counts a merged person once across its distinct ids', async () => {
    const res = await project.query({
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

  const funnel = (series: unknown[], funnelsFilter: Record<string, unknown> = {}) =>
    project.query({ query: { kind: 'FunnelsQuery', dateRange: { date_from: FROM, date_to: TO }, series, funnelsFilter } })
  const expectSteps = (results: any[], expected: ReturnType<typeof aggregate>) => {
    expect(results.map((s) => s.count)).toEqual(expected.map((s) => s.count))
    results.forEach((step, i) => {
      if (expected[i]!.average === null) expect(step.average_conversion_time).toBeNull()
      else expect(step.average_conversion_time).toBeCloseTo(expected[i]!.average, 2)
      if (expected[i]!.median === null) expect(step.median_conversion_time).toBeNull()
      else expect(step.median_conversion_time).toBeCloseTo(expected[i]!.median, 2)
    })
  }
  const ab = [
    { kind: 'EventsNode', event: 'f_a' },
    { kind: 'EventsNode', event: 'f_b' },
  ]

  it('counts a step stored without a person for the person its distinct id has now', async () => {
    const res = await funnel(ab)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expectSteps(res.body.results, oracle([is('f_a'), is('f_b')], 14 * 86_400))
  })

  it('counts a strict step only when it is the next event of the person, whatever that event is', async () => {
    const strict = await funnel(ab, { funnelOrderType: 'strict' })
    const ordered = await funnel(ab)
    expect(strict.status, JSON.stringify(strict.body)).toBe(200)
    const expected = aggregate(walkedPaths({ steps: [is('f_a'), is('f_b')], windowSeconds: 14 * 86_400, order: 'strict' }), 2)
    expectSteps(strict.body.results, expected)
    // The two persons with another event between f_a and f_b convert in order but not strictly.
    expect(ordered.body.results[1].count - strict.body.results[1].count).toBe(2)
    expect(strict.body.results[0].count).toBe(ordered.body.results[0].count)
  })

  it('breaks a strict funnel on any event of the person, step or not, over random events', async () => {
    const series = [
      { kind: 'EventsNode', event: 'pageview' },
      { kind: 'EventsNode', event: 'signup' },
      { kind: 'EventsNode', event: 'purchase' },
    ]
    const res = await funnel(series, { funnelOrderType: 'strict', funnelWindowInterval: 2, funnelWindowIntervalUnit: 'day' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const steps = [is('pageview'), is('signup'), is('purchase')]
    const expected = aggregate(walkedPaths({ steps, windowSeconds: 2 * 86_400, order: 'strict' }), 3)
    expectSteps(res.body.results, expected)
    expect(expected[1]!.count).toBeGreaterThan(0)
    expect(expected[1]!.count).toBeLessThan(oracle(steps, 2 * 86_400)[1]!.count)
    expect(res.body.results[2]).toMatchObject({ name: 'purchase', action_id: 'purchase', order: 2 })
  })

  it('counts unordered steps in any order, named by how many steps were completed', async () => {
    const unordered = await funnel(ab, { funnelOrderType: 'unordered' })
    const ordered = await funnel(ab)
    expect(unordered.status, JSON.stringify(unordered.body)).toBe(200)
    const expected = aggregate(walkedPaths({ steps: [is('f_a'), is('f_b')], windowSeconds: 14 * 86_400, order: 'unordered' }), 2)
    expectSteps(unordered.body.results, expected)
    // The person who did f_b before f_a converts only without order.
    expect(unordered.body.results[1].count - ordered.body.results[1].count).toBe(1)
    expect(unordered.body.results.map((s: any) => [s.name, s.action_id, s.custom_name, s.order])).toEqual([
      ['Completed 1 step', null, null, 0],
      ['Completed 2 steps', null, null, 1],
    ])
  })

  it('walks an unordered funnel over random events within the window', async () => {
    const series = [
      { kind: 'EventsNode', event: 'signup' },
      { kind: 'EventsNode', event: 'purchase', custom_name: 'Paid' },
      { kind: 'EventsNode', event: 'pageview' },
    ]
    const res = await funnel(series, { funnelOrderType: 'unordered', funnelWindowInterval: 12, funnelWindowIntervalUnit: 'hour' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const steps = [is('signup'), is('purchase'), is('pageview')]
    const expected = aggregate(walkedPaths({ steps, windowSeconds: 12 * 3600, order: 'unordered' }), 3)
    expectSteps(res.body.results, expected)
    expect(expected[2]!.count).toBeGreaterThan(0)
  })

  it('drops a person whose attempt has the excluded event between the steps, and keeps one who has it outside', async () => {
    const exclusions = [{ kind: 'EventsNode', event: 'f_x', funnelFromStep: 0, funnelToStep: 1 }]
    const res = await funnel(ab, { exclusions })
    const plain = await funnel(ab)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const expected = aggregate(
      walkedPaths({
        steps: [is('f_a'), is('f_b')],
        windowSeconds: 14 * 86_400,
        order: 'ordered',
        exclusions: [{ matches: is('f_x'), from: 0, to: 1 }],
      }),
      2,
    )
    expectSteps(res.body.results, expected)
    // Dropped from every step, the first included; f_x before f_a or after f_b changes nothing.
    expect(plain.body.results.map((s: any) => s.count - 1)).toEqual(res.body.results.map((s: any) => s.count))
  })

  it.each(['ordered', 'strict', 'unordered'] as const)('applies exclusions to %s funnels over random events', async (order) => {
    const series = [
      { kind: 'EventsNode', event: 'signup' },
      { kind: 'EventsNode', event: 'purchase' },
    ]
    const exclusions = [{ kind: 'EventsNode', event: 'pageview', funnelFromStep: 0, funnelToStep: 1 }]
    const res = await funnel(series, { funnelOrderType: order, exclusions, funnelWindowInterval: 1, funnelWindowIntervalUnit: 'day' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const expected = aggregate(
      walkedPaths({
        steps: [is('signup'), is('purchase')],
        windowSeconds: 86_400,
        order,
        exclusions: [{ matches: is('pageview'), from: 0, to: 1 }],
      }),
      2,
    )
    expectSteps(res.body.results, expected)
    expect(expected[0]!.count).toBeGreaterThan(0)
    // The exclusion drops someone: the random events put pageviews between many signups and purchases.
    const without = aggregate(walkedPaths({ steps: [is('signup'), is('purchase')], windowSeconds: 86_400, order }), 2)
    expect(expected[0]!.count + expected[1]!.count).toBeLessThan(without[0]!.count + without[1]!.count)
  })

  it.each([
    ['ordered', 5, undefined, undefined],
    ['ordered', undefined, 1, 2],
    ['strict', 7, 0, 1],
    ['unordered', undefined, undefined, undefined],
  ] as const)(
    'answers time to convert of %s funnels as bins from the fastest conversion (bins %s, steps %s to %s)',
    async (order, binCount, from, to) => {
      const series = [
        { kind: 'EventsNode', event: 'signup' },
        { kind: 'EventsNode', event: 'pageview' },
        { kind: 'EventsNode', event: 'purchase' },
      ]
      const res = await funnel(series, {
        funnelOrderType: order,
        funnelVizType: 'time_to_convert',
        funnelWindowInterval: 3,
        funnelWindowIntervalUnit: 'day',
        ...(binCount === undefined ? {} : { binCount }),
        ...(from === undefined ? {} : { funnelFromStep: from }),
        ...(to === undefined ? {} : { funnelToStep: to }),
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const steps = [is('signup'), is('pageview'), is('purchase')]
      const paths = order === 'ordered' ? orderedPaths(steps, 3 * 86_400) : walkedPaths({ steps, windowSeconds: 3 * 86_400, order })
      const expected = histogram(paths, from ?? 0, to ?? 2, binCount)
      expect(res.body.results.bins).toEqual(expected.bins)
      expect(expected.bins.reduce((sum, [, count]) => sum + count!, 0)).toBeGreaterThan(0)
      expect(res.body.results.average_conversion_time).toBeCloseTo(expected.average!, 2)
      expect(res.body.results.median_conversion_time).toBeCloseTo(expected.median!, 2)
    },
  )

  it.each([
    [
      'an exclusion range past the last step',
      { exclusions: [{ event: 'x', funnelFromStep: 2, funnelToStep: 3 }] },
      'Exclusion event range is invalid. Start of range is greater than number of steps.',
    ],
    [
      'an exclusion range ending past the last step',
      { exclusions: [{ event: 'x', funnelFromStep: 0, funnelToStep: 3 }] },
      'Exclusion event range is invalid. End of range is greater than number of steps.',
    ],
    [
      'an empty exclusion range',
      { exclusions: [{ event: 'x', funnelFromStep: 1, funnelToStep: 1 }] },
      'Exclusion event range is invalid. End of range should be greater than start.',
    ],
    [
      'an exclusion that is a step',
      { exclusions: [{ event: 'a', funnelFromStep: 0, funnelToStep: 1 }] },
      "Exclusion steps cannot contain an event that's part of funnel steps.",
    ],
    [
      'an exclusion narrower than a step',
      {
        exclusions: [
          { event: 'b', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }], funnelFromStep: 0, funnelToStep: 1 },
        ],
      },
      "Exclusion steps cannot contain an event that's part of funnel steps.",
    ],
    [
      'a partial exclusion in an unordered funnel',
      { funnelOrderType: 'unordered', exclusions: [{ event: 'x', funnelFromStep: 0, funnelToStep: 1 }] },
      'Partial Exclusions not allowed in unordered funnels',
    ],
    [
      'a breakdown attributed to a later step than the first in an unordered funnel',
      { funnelOrderType: 'unordered', breakdownAttributionType: 'step', breakdownAttributionValue: 1 },
      'Only the first step can be used for breakdown attribution in unordered funnels',
    ],
    [
      'the same in the time to convert of an unordered funnel',
      { funnelOrderType: 'unordered', funnelVizType: 'time_to_convert', breakdownAttributionType: 'step', breakdownAttributionValue: 2 },
      'Only the first step can be used for breakdown attribution in unordered funnels',
    ],
    [
      'a funnelToStep past the last step',
      { funnelVizType: 'time_to_convert', funnelToStep: 3 },
      'funnelToStep is out of bounds. It must be between 1 and 2.',
    ],
    ['a funnelFromStep past the last step', { funnelFromStep: 2 }, 'funnelFromStep is out of bounds. It must be between 0 and 1.'],
  ])("answers 400 with PostHog's message for %s", async (_, funnelsFilter, detail) => {
    const res = await project.query({
      query: { kind: 'FunnelsQuery', series: [{ event: 'a' }, { event: 'b' }, { event: 'c' }], funnelsFilter },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', detail })
  })

  it("accepts an exclusion of a step's event when the step is narrower than the exclusion", async () => {
    const res = await project.query({
      query: {
        kind: 'FunnelsQuery',
        series: [{ event: 'a', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }] }, { event: 'b' }],
        funnelsFilter: { exclusions: [{ event: 'a', funnelFromStep: 0, funnelToStep: 1 }] },
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  })

  it('answers 400 for a breakdown attributed to a step past the last', async () => {
    const res = await project.query({
      query: {
        kind: 'FunnelsQuery',
        series: [{ event: 'a' }, { event: 'b' }],
        funnelsFilter: { breakdownAttributionType: 'step', breakdownAttributionValue: 3 },
      },
    })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr: 'breakdownAttributionValue' })
  })

  it('needs two steps at least', async () => {
    const res = await project.query({ query: { kind: 'FunnelsQuery', series: [{ event: 'a' }] } })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ attr: 'query__series' })
  })
})
