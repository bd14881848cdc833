import { materializedColumns, SqlParams } from '@burrow/clickhouse'
import type { WebOverviewQuery } from '@burrow/contracts'
import type { QueryContext } from '../context'
import type { RunnerOutput } from '../runnerOutput'
import { select } from '../sql'
import { countedViewSql, inPeriodSql, numberOrNull, periodDates, sessionRowsSql, webPeriodsOf } from './sessions'

/** One tile of the overview, as PostHog's WebOverviewItem. */
export interface WebOverviewItem {
  key: string
  kind: 'unit' | 'duration_s' | 'percentage'
  isIncreaseBad: boolean | null
  value: number | null
  previous: number | null
  changeFromPreviousPct: number | null
}

/** Python's round(): halves to the even neighbour, as PostHog rounds the change. */
export function roundHalfEven(x: number): number {
  const floor = Math.floor(x)
  const diff = x - floor
  if (diff > 0.5) return floor + 1
  if (diff < 0.5) return floor
  return floor % 2 === 0 ? floor : floor + 1
}

/** A tile from its value and its previous period's, percentages from fractions. */
export function overviewItem(
  key: string,
  kind: WebOverviewItem['kind'],
  value: number | null,
  previous: number | null,
  isIncreaseBad: boolean | null = null,
): WebOverviewItem {
  const scale = kind === 'percentage' ? 100 : 1
  const v = value === null ? null : value * scale
  const p = previous === null ? null : previous * scale
  const change = v !== null && p !== null && p !== 0 ? roundHalfEven((100 * (v - p)) / p) : null
  return { key, kind, isIncreaseBad, value: v, previous: p, changeFromPreviousPct: change }
}

interface OverviewRow {
  visitors: unknown
  previous_visitors: unknown
  views: unknown
  previous_views: unknown
  sessions: unknown
  previous_sessions: unknown
  duration: unknown
  previous_duration: unknown
  bounce_rate: unknown
  previous_bounce_rate: unknown
}

/**
 * PostHog's WebOverviewQuery: visitors (persons), views, sessions, the mean session duration
 * and the bounce rate of the sessions that started in the range, each with the previous
 * period's when compared.
 */
export async function runWebOverview(ctx: QueryContext, query: WebOverviewQuery): Promise<RunnerOutput> {
  const periods = await webPeriodsOf(ctx, query)
  const params = new SqlParams()
  const columns = materializedColumns(ctx.ch)
  const counted = await countedViewSql(ctx, query, periods, params, columns)
  // The sessions that started in one of the periods, with their counted views.
  const sessions = `SELECT person AS session_person, views AS session_views, duration AS session_duration, is_bounce AS session_bounce,
      ${inPeriodSql(params, 'start', periods.current)} AS cur, ${inPeriodSql(params, 'start', periods.previous)} AS prev
    FROM (${sessionRowsSql(params, columns, periods, counted)})
    WHERE cur OR prev`
  const sql = `SELECT
      uniqIf(session_person, cur) AS visitors, uniqIf(session_person, prev) AS previous_visitors,
      sumIf(session_views, cur) AS views, sumIf(session_views, prev) AS previous_views,
      countIf(cur) AS sessions, countIf(prev) AS previous_sessions,
      avgIf(session_duration, cur) AS duration, avgIf(session_duration, prev) AS previous_duration,
      avgIf(session_bounce, cur) AS bounce_rate, avgIf(session_bounce, prev) AS previous_bounce_rate
    FROM (${sessions})`
  const [row] = await select<OverviewRow>(ctx, sql, params.values)
  const compared = periods.previous !== undefined
  const pair = (current: unknown, previous: unknown) => [numberOrNull(current), compared ? numberOrNull(previous) : null] as const
  const results = [
    overviewItem('visitors', 'unit', ...pair(row?.visitors ?? 0, row?.previous_visitors ?? 0)),
    overviewItem('views', 'unit', ...pair(row?.views ?? 0, row?.previous_views ?? 0)),
    overviewItem('sessions', 'unit', ...pair(row?.sessions ?? 0, row?.previous_sessions ?? 0)),
    overviewItem('session duration', 'duration_s', ...pair(row?.duration, row?.previous_duration)),
    overviewItem('bounce rate', 'percentage', ...pair(row?.bounce_rate, row?.previous_bounce_rate), true),
  ]
  const dates = periodDates(periods)
  return {
    results,
    extra: { samplingRate: { numerator: 1 }, ...dates.extra, usedPreAggregatedTables: false },
    resolvedDateRange: dates.resolvedDateRange,
  }
}
