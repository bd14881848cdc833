/**
 * The persons behind a number of an insight (PostHog's persons modal): which number was chosen,
 * the `ActorsQuery` that lists its persons, and the rows of its answer as the dialog shows them.
 */
import type { InsightSource } from './insightQuery'

/** A number of an insight, as each kind names it in its InsightActorsQuery (or FunnelsActorsQuery). */
export type ActorsPoint =
  /** `day` left out: the whole range, as a total-value display counts it. */
  | { kind: 'TrendsQuery'; series: number; day?: string; breakdown?: unknown; previous: boolean }
  /** `droppedOff`: those who reached the step before `step` and no further. */
  | { kind: 'FunnelsQuery'; step: number; droppedOff: boolean; breakdown?: unknown }
  | { kind: 'LifecycleQuery'; day: string; status: string }
  /** `day`: how many intervals the persons were active in. */
  | { kind: 'StickinessQuery'; series: number; day: number; previous: boolean }
  /** `interval`: the cohort's row, 0 the first. */
  | { kind: 'RetentionQuery'; interval: number }

/** A chosen number: its point, what the dialog calls it, and how many persons it counts when it counts persons. */
export interface ChosenPoint {
  point: ActorsPoint
  title: string
  persons?: number
}

/** A person of the list, as the dialog shows them. */
export interface ActorRow {
  id: string
  name: string
  distinctId: string
  /** A trend's point: the person's events it counts; a retention cohort: the periods they came in, from 0 (the cohort's own). */
  count?: string
}

/** Persons shown on one page of the dialog. */
export const ACTORS_PAGE = 100

/** Trend maths whose point is a number of persons, so that the list is as long as the point. */
const PERSON_MATHS = ['dau', 'weekly_active', 'monthly_active', 'first_time_for_user', 'first_matching_event_for_user']

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const firstOf = (v: unknown): unknown => (Array.isArray(v) ? (v as unknown[])[0] : undefined)
const seriesOf = (source: InsightSource): Record<string, unknown>[] => (Array.isArray(source.series) ? source.series.filter(isRecord) : [])

/** The display kinds of a trend that draw one total per series, whose persons are those of the whole range. */
const TOTAL_DISPLAYS = ['BoldNumber', 'ActionsTable', 'ActionsPie']
export const isTotalDisplay = (source: InsightSource): boolean =>
  isRecord(source.trendsFilter) && TOTAL_DISPLAYS.includes(String(source.trendsFilter.display))

/**
 * Why the numbers of an insight have no persons to list, or undefined when they do: the persons
 * of a formula's and of a histogram bin's numbers are not served (as in PostHog's modal), nor yet
 * those of a path.
 */
export function whyNoActors(source: InsightSource): string | undefined {
  if (source.kind === 'PathsQuery') return 'The persons behind a path’s links are not listed: the query API does not serve them yet.'
  const trends = isRecord(source.trendsFilter) ? source.trendsFilter : {}
  if (source.kind === 'TrendsQuery' && typeof trends.formula === 'string' && trends.formula.trim() !== '') {
    return 'The persons behind a formula’s numbers are not listed: take the formula off to see each series’ persons.'
  }
  const breakdown = isRecord(source.breakdownFilter) ? source.breakdownFilter : {}
  if (typeof breakdown.breakdown_histogram_bin_count === 'number') {
    return 'The persons behind a histogram bin are not listed: take the bins off to see each value’s persons.'
  }
  if (seriesOf(source).some((s) => s.math === 'unique_group')) return 'The groups behind a number are not listed; only persons are.'
  return undefined
}

/** The query naming the point, which `/query/` takes as an ActorsQuery's `source`. */
export function actorsSourceOf(source: InsightSource, point: ActorsPoint): Record<string, unknown> {
  switch (point.kind) {
    case 'TrendsQuery':
      return {
        kind: 'InsightActorsQuery',
        source,
        series: point.series,
        ...(point.day !== undefined ? { day: point.day } : {}),
        ...(point.breakdown !== undefined ? { breakdown: point.breakdown } : {}),
        ...(point.previous ? { compare: 'previous' } : {}),
      }
    case 'FunnelsQuery':
      return {
        kind: 'FunnelsActorsQuery',
        source,
        // PostHog's sign: a negative step is those who dropped off before it.
        funnelStep: point.droppedOff ? -point.step : point.step,
        ...(point.breakdown !== undefined ? { funnelStepBreakdown: point.breakdown } : {}),
      }
    case 'LifecycleQuery':
      return { kind: 'InsightActorsQuery', source, day: point.day, status: point.status }
    case 'StickinessQuery':
      return {
        kind: 'InsightActorsQuery',
        source,
        series: point.series,
        day: point.day,
        ...(point.previous ? { compare: 'previous' } : {}),
      }
    case 'RetentionQuery':
      return { kind: 'InsightActorsQuery', source, interval: point.interval }
  }
}

/** The column of each person's count, when the kind has one. */
const countColumnOf = (point: ActorsPoint): string | undefined =>
  point.kind === 'TrendsQuery' ? 'event_count' : point.kind === 'RetentionQuery' ? 'appearances' : undefined

/** The ActorsQuery of one page of the persons behind `point`: the persons with the most events first, for a trend. */
export function actorsQueryOf(source: InsightSource, point: ActorsPoint, offset = 0, limit = ACTORS_PAGE): Record<string, unknown> {
  const count = countColumnOf(point)
  return {
    kind: 'ActorsQuery',
    source: actorsSourceOf(source, point),
    select: count ? ['person', count] : ['person'],
    ...(point.kind === 'TrendsQuery' ? { orderBy: ['event_count DESC'] } : {}),
    limit,
    offset,
  }
}

const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '')

/** PostHog's person display name: the email, name or username property, else the first distinct id. */
export function displayNameOf(person: Record<string, unknown>): string {
  const properties = isRecord(person.properties) ? person.properties : {}
  for (const key of ['email', 'name', 'username']) {
    const value = text(properties[key]).trim()
    if (value) return value
  }
  return text(firstOf(person.distinct_ids)) || text(person.id)
}

/** The persons of an ActorsQuery's answer (`results` in the order of `columns`). */
export function actorRowsOf(answer: { columns?: unknown; results?: unknown }): ActorRow[] {
  const columns = Array.isArray(answer.columns) ? answer.columns.map(text) : []
  const personAt = columns.indexOf('person')
  const countAt = columns.findIndex((c) => c === 'event_count' || c === 'appearances')
  const results = Array.isArray(answer.results) ? answer.results.filter(Array.isArray) : []
  return results.flatMap((row: unknown[]) => {
    const person = row[personAt]
    if (!isRecord(person)) return []
    const count = countAt < 0 ? undefined : row[countAt]
    return [
      {
        id: text(person.id),
        name: displayNameOf(person),
        distinctId: text(firstOf(person.distinct_ids)),
        ...(typeof count === 'number' ? { count: String(count) } : Array.isArray(count) ? { count: count.map(text).join(', ') } : {}),
      },
    ]
  })
}

/** A trend's (or stickiness') row of `/query/`'s answer, as far as its points are named by it. */
interface SeriesRow {
  action?: unknown
  days?: unknown
  breakdown_value?: unknown
  compare_label?: unknown
  status?: unknown
  label?: unknown
}

/**
 * The point of a row's number at `index` (left out for a total), what the dialog calls it, and its
 * persons when the number counts persons; undefined when the row does not name its point.
 */
export function pointOfRow(source: InsightSource, row: SeriesRow, index: number | undefined, value: number): ChosenPoint | undefined {
  const days: unknown[] = Array.isArray(row.days) ? (row.days as unknown[]) : []
  const order = isRecord(row.action) && typeof row.action.order === 'number' ? row.action.order : 0
  const previous = row.compare_label === 'previous'
  const label = text(row.label) || 'All events'
  const when = (day: unknown) => (previous ? `${text(day)} (previous period)` : text(day))
  switch (source.kind) {
    case 'TrendsQuery': {
      const day = index === undefined ? undefined : days[index]
      if (index !== undefined && day === undefined) return undefined
      const math = seriesOf(source)[order]?.math
      return {
        point: {
          kind: 'TrendsQuery',
          series: order,
          ...(day !== undefined ? { day: text(day) } : {}),
          ...(row.breakdown_value !== undefined && row.breakdown_value !== null ? { breakdown: row.breakdown_value } : {}),
          previous,
        },
        title: day === undefined ? `${label}${previous ? ' (previous period)' : ''}` : `${label} on ${when(day)}`,
        ...(typeof math === 'string' && PERSON_MATHS.includes(math) ? { persons: value } : {}),
      }
    }
    case 'LifecycleQuery': {
      const day = index === undefined ? undefined : days[index]
      if (day === undefined || typeof row.status !== 'string') return undefined
      // Dormant persons are counted below zero; their list is as long as the bar.
      return {
        point: { kind: 'LifecycleQuery', day: text(day), status: row.status },
        title: `${row.status} on ${text(day)}`,
        persons: Math.abs(value),
      }
    }
    case 'StickinessQuery': {
      const day = index === undefined ? undefined : days[index]
      if (typeof day !== 'number') return undefined
      // A cumulative bar counts those active in that many intervals or more, and so lists them.
      const orMore = isRecord(source.stickinessFilter) && source.stickinessFilter.computedAs === 'cumulative' ? ' or more' : ''
      return {
        point: { kind: 'StickinessQuery', series: order, day, previous },
        title: `${label}, active in ${day} interval${day === 1 ? '' : 's'}${orMore}${previous ? ' (previous period)' : ''}`,
        persons: value,
      }
    }
    default:
      return undefined
  }
}
