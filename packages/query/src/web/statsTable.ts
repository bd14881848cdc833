import { materializedColumns, SqlParams } from '@burrow/clickhouse'
import { WEB_STATS_MAX_LIMIT, type WebStatsBreakdown, type WebStatsTableQuery } from '@burrow/contracts'
import type { QueryContext } from '../context'
import type { PropertyColumns } from '../events'
import type { RunnerOutput } from '../runnerOutput'
import { select } from '../sql'
import {
  countedViewSql,
  entryPropertySql,
  inPeriodSql,
  numberOrNull,
  periodDates,
  sessionRowsSql,
  sessionValueRowsSql,
  webPeriodsOf,
  type WebPeriods,
} from './sessions'

/** PostHog's default page of a table (its DEFAULT_RETURNED_ROWS). */
const DEFAULT_LIMIT = 100

/** The session facts each breakdown of a session reads, by breakdown. */
const ENTRY_PROPERTY: Partial<Record<WebStatsBreakdown, string>> = {
  InitialReferringDomain: '$referring_domain',
  InitialUTMSource: 'utm_source',
  InitialUTMMedium: 'utm_medium',
  InitialUTMCampaign: 'utm_campaign',
}

/** The event property each breakdown of an event reads, by breakdown. */
const EVENT_PROPERTY: Partial<Record<WebStatsBreakdown, string>> = {
  Page: '$pathname',
  Browser: '$browser',
  OS: '$os',
  DeviceType: '$device_type',
  Country: '$geoip_country_code',
}

/** UTM breakdowns show the sessions without the tag too (a null row), as PostHog's. */
const SHOWS_NULL = new Set<WebStatsBreakdown>(['InitialUTMSource', 'InitialUTMMedium', 'InitialUTMCampaign'])

/**
 * An event property as PostHog's HogQL reads it: NULL when the event lacks it or it is null,
 * strings as they are, other values as their JSON.
 */
function eventPropertySql(params: SqlParams, columns: PropertyColumns, key: string): string {
  const own = columns.get(key)
  if (own !== undefined) return `nullIf(e.\`${own}\`, 'null')`
  const k = params.add('String', key)
  return `if(JSONType(e.properties, ${k}) = 'Null', NULL, if(JSONType(e.properties, ${k}) = 'String', JSONExtractString(e.properties, ${k}), JSONExtractRaw(e.properties, ${k})))`
}

/** A session breakdown's value: the entry page or an entry property (an aggregate over the session's events). */
function entrySql(params: SqlParams, columns: PropertyColumns, by: WebStatsBreakdown): string {
  if (by === 'InitialPage') return `path(${entryPropertySql(params, columns, '$current_url')})`
  return entryPropertySql(params, columns, ENTRY_PROPERTY[by]!)
}

interface StatsRow {
  breakdown_value: string | null
  visitors: unknown
  previous_visitors: unknown
  views: unknown
  previous_views: unknown
  bounce_rate?: unknown
  previous_bounce_rate?: unknown
  fill: unknown
}

/**
 * One row per session and breakdown value with counted views: the person, the views, and the
 * session's start and bounce (NULL for the events of no session). Rows without a value are left
 * out, but for the UTM breakdowns.
 */
function breakdownRowsSql(
  params: SqlParams,
  columns: PropertyColumns,
  periods: WebPeriods,
  counted: string,
  by: WebStatsBreakdown,
): string {
  const key = EVENT_PROPERTY[by]
  const keepNull = SHOWS_NULL.has(by)
  const rows =
    key !== undefined
      ? sessionValueRowsSql(params, columns, periods, counted, eventPropertySql(params, columns, key))
      : sessionRowsSql(params, columns, periods, counted, { entry: entrySql(params, columns, by), withoutSession: keepNull })
  return `SELECT breakdown_value, person AS row_person, views AS row_views, is_bounce AS row_bounce, start AS row_start
    FROM (${rows})${keepNull ? '' : ' WHERE breakdown_value IS NOT NULL'}`
}

/** The ORDER BY of PostHog's tables: the chosen column first, then visitors, views, the value. */
function orderBySql(query: WebStatsTableQuery, bounce: boolean): string {
  const column = { Visitors: 'visitors', Views: 'views', BounceRate: 'bounce_rate' } as const
  const [field, direction] = query.orderBy ?? [undefined, 'DESC']
  const chosen = field && (field !== 'BounceRate' || bounce) ? column[field] : undefined
  const order = (c: string) => `${c} ${direction}, previous_${c} ${direction}`
  const rest = ['visitors', 'views'].filter((c) => c !== chosen).map(order)
  return [...(chosen ? [order(chosen)] : []), ...rest, 'breakdown_value ASC'].join(', ')
}

/**
 * PostHog's WebStatsTableQuery: per value of the breakdown (a page, an entry page, the session's
 * first referrer or UTM tag, or the event's country, device, browser or OS), the visitors and
 * views, and with `includeBounceRate` the bounce rate, each paired with the previous period's.
 */
export async function runWebStatsTable(ctx: QueryContext, query: WebStatsTableQuery): Promise<RunnerOutput> {
  const periods = await webPeriodsOf(ctx, query)
  const compared = periods.previous !== undefined
  const by = query.breakdownBy
  const bounce = query.includeBounceRate === true
  const limit = Math.min(query.limit ?? DEFAULT_LIMIT, WEB_STATS_MAX_LIMIT)
  const offset = query.offset ?? 0
  const params = new SqlParams()
  const columns = materializedColumns(ctx.ch)
  const counted = await countedViewSql(ctx, query, periods, params, columns)
  const cur = inPeriodSql(params, 'row_start', periods.current)
  const prev = inPeriodSql(params, 'row_start', periods.previous)
  let sql: string
  if (by === 'Page' && bounce) {
    // PostHog's path bounce table: the counts by page, the bounce rate of the sessions entering
    // on it, both counted by the session's start even when not compared (the previous counts 0).
    const counts = breakdownRowsSql(params, columns, periods, counted, 'Page')
    const entries = breakdownRowsSql(params, columns, periods, counted, 'InitialPage')
    sql = `SELECT c.breakdown_value AS breakdown_value, c.visitors AS visitors, c.previous_visitors AS previous_visitors,
        c.views AS views, c.previous_views AS previous_views, b.bounce_rate AS bounce_rate, b.previous_bounce_rate AS previous_bounce_rate
      FROM (
        SELECT breakdown_value, uniqIf(row_person, ${cur}) AS visitors, uniqIf(row_person, ${prev}) AS previous_visitors,
          sumIf(row_views, ${cur}) AS views, sumIf(row_views, ${prev}) AS previous_views
        FROM (${counts}) GROUP BY breakdown_value
      ) AS c
      LEFT JOIN (
        SELECT breakdown_value, avgIf(row_bounce, ${cur}) AS bounce_rate, avgIf(row_bounce, ${prev}) AS previous_bounce_rate
        FROM (${entries}) GROUP BY breakdown_value
      ) AS b ON b.breakdown_value = c.breakdown_value`
  } else {
    const rows = breakdownRowsSql(params, columns, periods, counted, by)
    const pair = (fn: string, column: string, alias: string) =>
      compared
        ? `${fn}If(${column}, ${cur}) AS ${alias}, ${fn}If(${column}, ${prev}) AS previous_${alias}`
        : `${fn}(${column}) AS ${alias}, NULL AS previous_${alias}`
    sql = `SELECT breakdown_value, ${pair('uniq', 'row_person', 'visitors')}, ${pair('sum', 'row_views', 'views')}
        ${bounce ? `, ${pair('avg', 'row_bounce', 'bounce_rate')}` : ''}
      FROM (${rows}) GROUP BY breakdown_value`
  }
  // The row's share of the column it is ordered by (the visitors unless a fraction is chosen), over all rows, as PostHog fills its bars.
  const fill = query.orderBy?.[0] === 'BounceRate' && bounce ? 'bounce_rate' : query.orderBy?.[0] === 'Views' ? 'views' : 'visitors'
  const fillSql = fill === 'bounce_rate' ? 'bounce_rate' : `${fill} / sum(${fill}) OVER ()`
  const paged = `SELECT *, ${fillSql} AS fill FROM (${sql})
    ORDER BY ${orderBySql(query, bounce)}
    LIMIT ${params.add('UInt64', limit + 1)} OFFSET ${params.add('UInt64', offset)}`
  const found = await select<StatsRow>(ctx, paged, params.values)
  const hasMore = found.length > limit
  const pairOf = (current: unknown, previous: unknown) => [numberOrNull(current), numberOrNull(previous)]
  const results = found
    .slice(0, limit)
    .map((row) => [
      row.breakdown_value,
      pairOf(row.visitors, row.previous_visitors),
      pairOf(row.views, row.previous_views),
      ...(bounce ? [pairOf(row.bounce_rate, row.previous_bounce_rate)] : []),
      numberOrNull(row.fill),
      '',
    ])
  const columnNames = [
    'context.columns.breakdown_value',
    'context.columns.visitors',
    'context.columns.views',
    ...(bounce ? ['context.columns.bounce_rate'] : []),
    'context.columns.ui_fill_fraction',
    'context.columns.cross_sell',
  ]
  const dates = periodDates(periods)
  return {
    results,
    extra: { columns: columnNames, hasMore, limit, offset, samplingRate: { numerator: 1 }, usedPreAggregatedTables: false },
    resolvedDateRange: dates.resolvedDateRange,
  }
}
