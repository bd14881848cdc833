import { eventPropertiesSql, materializedColumns, SqlParams } from '@burrow/clickhouse'
import type { FunnelsQuery } from '@burrow/contracts'
import type { QueryContext } from '../context'
import { EVENT_EXPRESSION_COLUMNS, eventExpressionOf } from '../eventExpression'
import { bucketKeySql, dayKey, dayLabel, isoInZone, resolveRange, utcText } from '../dates'
import {
  breakdownValueSql,
  ownColumnSql,
  ownColumnsSelectSql,
  personPropertiesJoinSql,
  selectionConditionSql,
  type EventSelection,
} from '../events'
import { DEFAULT_BREAKDOWN_LIMIT } from '../trends/breakdownLimit'
import type { RunnerOutput } from '../runnerOutput'
import { entityOf, queryFiltersOf, rangeOptionsOf, selectionOf } from '../series'
import { num, select, TEAM } from '../sql'
import { orderedAttemptSql, thinnedEventsSql, unorderedAttemptSql } from './attempts'
import { ACTOR, eventsWithActorSql } from '../eventActors'
import { timeToConvertResult, timeToConvertSql, type Histogram } from './timeToConvert'
import { funnelTrendsResult, funnelTrendsWalkSql, unorderedTrendsWalkSql } from './trends'
import { validateFunnel } from './validate'

const UNIT_SECONDS = { second: 1, minute: 60, hour: 3600, day: 86_400, week: 7 * 86_400, month: 30 * 86_400 } as const

/**
 * The times (epoch seconds) at which one person completes each step of an ordered funnel from a
 * first step at `t0`: each step is the earliest matching event at or after the step before and
 * within the window of the first; 0 once a step is not reached. The earliest next event is the
 * best choice for every step after it, so the chain reaches as far as any path from `t0` does.
 */
function chainSql(step: number, steps: number, sameAsPrevious: boolean[]): string {
  if (step === steps) return '[]'
  const prev = `t${step - 1}`
  const after = sameAsPrevious[step] ? `x > ${prev}` : `x >= ${prev}`
  const next = `arrayFirst(x -> ${prev} > 0 AND ${after} AND x <= t0 + {window:Float64}, s${step})`
  return `arrayMap(t${step} -> arrayConcat([t${step}], ${chainSql(step + 1, steps, sameAsPrevious)}), [${next}])[1]`
}

const UNORDERED_NAME = (i: number) => `Completed ${i + 1} step${i === 0 ? '' : 's'}`

/** The breakdown value of the persons past `breakdown_limit`, as PostHog's funnels name them. */
const FUNNEL_OTHER = 'Other'

/**
 * Which events give a person's breakdown value (PostHog's breakdownAttributionType): the earliest
 * (`first_touch`) or latest (`last_touch`) of the person's events that has a value; every value
 * the person's events have, each walked over the events with that value (`all_events`); or each
 * value of the person's events of one step, which that step's event must have (`step`).
 */
export type Attribution = { kind: 'first_touch' | 'last_touch' | 'all_events' } | { kind: 'step'; step: number }

/** A funnel's range and steps, and its statement of each person's furthest attempt (`perPerson`: actor, level, times, breakdown_value). */
export async function funnelPlanOf(ctx: QueryContext, query: FunnelsQuery, params: SqlParams) {
  const interval = validateFunnel(query)
  const range = await resolveRange(
    query.dateRange,
    interval,
    rangeOptionsOf(
      ctx,
      query.series.map((s) => s.event ?? null),
    ),
  )
  const funnelsFilter = query.funnelsFilter
  const order = funnelsFilter?.funnelOrderType ?? 'ordered'
  const exclusionNodes = funnelsFilter?.exclusions ?? []
  const filters = await queryFiltersOf(ctx, query)
  const steps = await Promise.all(query.series.map((node, i) => selectionOf(ctx, node, undefined, `series__${i}`)))
  const exclusions = await Promise.all(exclusionNodes.map((node, j) => selectionOf(ctx, node, undefined, `exclusions__${j}`)))
  const windowSeconds = (funnelsFilter?.funnelWindowInterval ?? 14) * UNIT_SECONDS[funnelsFilter?.funnelWindowIntervalUnit ?? 'day']

  const columns = materializedColumns(ctx.ch)
  const conditionOf = (s: EventSelection) => {
    const { which, filters } = selectionConditionSql(s, params, columns)
    return [...which, ...filters].join(' AND ') || '1'
  }
  const n = steps.length
  const flagNames = steps.map((_, i) => `step_${i}`)
  const flags = steps.map((s, i) => `(${conditionOf(s)}) AS step_${i}`)
  // PostHog guards step i (0-based) with every exclusion whose range holds it: from < i <= to.
  const guarded = Array.from({ length: n }, (_, i) =>
    exclusionNodes.flatMap((node, j) => (node.funnelFromStep < i && i <= node.funnelToStep ? [j] : [])),
  )
  const exclusionConditions = exclusions.map(conditionOf)
  for (let i = 1; i < n; i++) {
    const js = guarded[i]!
    if (js.length === 0) continue
    flags.push(`(${js.map((j) => `(${exclusionConditions[j]!})`).join(' OR ')}) AS exclusion_${i}`)
    flagNames.push(`exclusion_${i}`)
  }
  const where = [
    `team_id = ${TEAM}`,
    `timestamp >= toDateTime64(${params.add('String', utcText(range.from))}, 6, 'UTC')`,
    `timestamp < toDateTime64(${params.add('String', utcText(range.to.plus({ milliseconds: 1 })))}, 6, 'UTC')`,
  ]
  // A strict funnel reads every event of the person: any of them between two steps breaks it.
  if (order !== 'strict') where.push(`(${flagNames.join(' OR ')})`)
  if (filters) where.push(eventPropertiesSql(filters, TEAM, params, columns))

  // Each event's breakdown value, '' where it has none (PostHog's funnels, unlike its trends).
  // A list is of one property (the schema refuses more).
  const given = query.breakdownFilter?.breakdown
  const breakdown = (Array.isArray(given) ? given[0] : given) ?? null
  const byPerson = query.breakdownFilter?.breakdown_type === 'person'
  // A HogQL breakdown: an expression over each event, its value as text ('' for none, as funnels answer).
  const expression =
    breakdown !== null && query.breakdownFilter?.breakdown_type === 'hogql'
      ? await eventExpressionOf(ctx, String(breakdown), {
          attr: 'query__breakdownFilter__breakdown',
          what: 'breakdown',
          aggregate: false,
          prefix: 'hogql_breakdown_',
          personSql: ACTOR,
        })
      : undefined
  if (expression) Object.assign(params.values, expression.params)
  const joins = breakdown !== null && (byPerson || expression?.needsPerson) ? [personPropertiesJoinSql(ACTOR)] : []
  const valueSql =
    breakdown === null
      ? "''"
      : expression
        ? `ifNull(toString(${expression.sql}), '')`
        : byPerson
          ? breakdownValueSql('pp.properties', String(breakdown), params, '')
          : breakdownValueSql('e.properties', String(breakdown), params, '', ownColumnSql(columns, String(breakdown)))
  const expressionColumns = expression ? `, event${EVENT_EXPRESSION_COLUMNS}` : ''
  const eventsSql = eventsWithActorSql(
    `timestamp, properties${ownColumnsSelectSql(columns)}${expressionColumns}, ${flags.join(', ')}`,
    where.join(' AND '),
  )
  const kind = funnelsFilter?.breakdownAttributionType ?? 'first_touch'
  const attribution: Attribution =
    breakdown === null
      ? { kind: 'first_touch' }
      : kind === 'step'
        ? { kind, step: funnelsFilter?.breakdownAttributionValue ?? 0 }
        : { kind }

  // Walking every value or step value over the person's events needs PostHog's walk; so does a
  // step of every event, where the chain of times alone cannot tell one event filling two steps.
  const walked =
    order !== 'ordered' ||
    exclusionNodes.length > 0 ||
    attribution.kind === 'all_events' ||
    attribution.kind === 'step' ||
    steps.some((s) => s.event === null)
  const perPerson = walked
    ? walkedPersonsSql({ n, order, eventsSql, joins, valueSql, guarded, attribution })
    : chainedPersonsSql({ steps, eventsSql, joins, valueSql: touchedValueSql(valueSql, attribution) })
  return {
    interval,
    range,
    funnelsFilter,
    order,
    n,
    steps,
    guarded,
    eventsSql,
    joins,
    valueSql,
    attribution,
    breakdown,
    perPerson,
    windowSeconds,
  }
}

/**
 * PostHog's FunnelsQuery: how many persons reached each step and how long each step took, in
 * order (`ordered`), with no other event of the person between steps (`strict`) or in any order
 * (`unordered`), less the persons an exclusion drops; or, as `time_to_convert`, a histogram of
 * the time from one step to another.
 */
export async function runFunnels(ctx: QueryContext, query: FunnelsQuery): Promise<RunnerOutput> {
  const params = new SqlParams()
  const {
    interval,
    range,
    funnelsFilter,
    order,
    n,
    steps,
    guarded,
    eventsSql,
    joins,
    valueSql,
    attribution,
    breakdown,
    perPerson,
    windowSeconds,
  } = await funnelPlanOf(ctx, query, params)
  const queryParams = { window: windowSeconds }
  const resolvedDateRange = { date_from: isoInZone(range.from), date_to: isoInZone(range.to) }

  if (funnelsFilter?.funnelVizType === 'trends') {
    // Steps past funnelToStep do not count: the funnel ends there.
    const toStep = (funnelsFilter.funnelToStep ?? n - 1) + 1
    const zone = params.add('String', ctx.timezone)
    const keys = params.add(
      'Array(String)',
      range.buckets.map((b) => dayKey(b, interval)),
    )
    const period = `indexOf(${keys}, ${bucketKeySql(interval, 'e.timestamp', zone, ctx.weekStartDay)})`
    const fromStep = funnelsFilter.funnelFromStep ?? 0
    // An unordered attempt is complete only with every step, so all are walked; an ordered one
    // cannot go past toStep, nor meet an exclusion guarding a step after it.
    const walkedSteps = order === 'unordered' ? n : toStep
    const person = personEventsSql({
      steps: walkedSteps,
      order,
      eventsSql,
      joins,
      valueSql,
      guarded: guarded.slice(0, walkedSteps),
      attribution,
      period,
    })
    const walk =
      order === 'unordered'
        ? unorderedTrendsWalkSql({
            events: person.events,
            steps: n,
            toStep,
            fromStep,
            windowSeconds: '{window:Float64}',
            attributedStep: attribution.kind === 'step' ? attribution.step : undefined,
          })
        : funnelTrendsWalkSql({ events: person.events, toStep, fromStep, windowSeconds: '{window:Float64}', strict: order === 'strict' })
    const sql = `SELECT breakdown_value, r.1 AS period, countIf(r.2 != 0) AS reached_from, countIf(r.2 = 1) AS reached_to,
        if(reached_from > 0, round(reached_to / reached_from * 100, 2), 0) AS rate
      FROM (SELECT arrayJoin(${walk}) AS r, breakdown_value FROM (${person.rows}))
      GROUP BY breakdown_value, period`
    const rows = await select<Parameters<typeof funnelTrendsResult>[0]['rows'][number]>(ctx, sql, { ...params.values, ...queryParams })
    const results = funnelTrendsResult({
      rows,
      days: range.buckets.map((b) => dayKey(b, interval)),
      labels: range.buckets.map((b) => dayLabel(b, interval, range, ctx.weekStartDay)),
      breakdown: breakdown !== null,
      breakdownLimit: query.breakdownFilter?.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT,
    })
    return { results, resolvedDateRange }
  }

  if (funnelsFilter?.funnelVizType === 'time_to_convert') {
    const sql = `WITH per_person AS (${perPerson}) ${timeToConvertSql({
      perPerson: 'per_person',
      fromStep: funnelsFilter.funnelFromStep ?? 0,
      toStep: funnelsFilter.funnelToStep ?? n - 1,
      binCount: funnelsFilter.binCount ?? null,
    })}`
    const rows = await select<Histogram>(ctx, sql, { ...params.values, ...queryParams })
    return { results: timeToConvertResult(rows[0]), resolvedDateRange }
  }

  // PostHog averages only the conversions that took time.
  const stepColumns = steps
    .map((_, i) => {
      const reached = `countIf(level >= ${i + 1}) AS count_${i}`
      if (i === 0) return reached
      const took = `times[${i + 1}] - times[${i}]`
      const timed = `level >= ${i + 1} AND ${took} > 0`
      return `${reached}, avgIf(${took}, ${timed}) AS avg_${i}, quantileExactInclusiveIf(0.5)(${took}, ${timed}) AS median_${i}`
    })
    .join(', ')
  // PostHog keeps the values that reached furthest (the most persons at the last step, then at
  // the one before, ...) and puts the others in one Other row. The persons are walked once: each
  // person's row carries its value's counts (window functions), which rank the values.
  const byValue = valuesRankedSql(query, n, breakdown !== null, params)
  const sql = `WITH per_person AS (${perPerson})
    SELECT value, ${stepColumns} FROM (${byValue}) GROUP BY value`
  const rows = await select<Record<string, number | string | null>>(ctx, sql, { ...params.values, ...queryParams })
  const stepsOf = (row: Record<string, number | string | null> | undefined) =>
    query.series.map((node, i) => {
      const count = num(row?.[`count_${i}`])
      const time = (key: string) => (i === 0 || count === 0 || row?.[key] === null || row?.[key] === undefined ? null : num(row[key]))
      const named =
        order === 'unordered'
          ? { action_id: null, name: UNORDERED_NAME(i), custom_name: null }
          : // PostHog names a step of every event null.
            { action_id: entityOf(steps[i]!).id, name: entityOf(steps[i]!).name, custom_name: node.custom_name ?? null }
      return {
        ...named,
        order: i,
        people: [],
        count,
        type: entityOf(steps[i]!).type,
        average_conversion_time: time(`avg_${i}`),
        median_conversion_time: time(`median_${i}`),
        ...(breakdown === null ? {} : { breakdown: [String(row?.value)], breakdown_value: [String(row?.value)] }),
      }
    })
  if (breakdown === null) return { results: stepsOf(rows[0]), resolvedDateRange }
  // Furthest first, Other among them by its own counts, as PostHog orders the rows.
  const furthest = (a: Record<string, unknown>, b: Record<string, unknown>) => {
    for (let i = n - 1; i >= 0; i--) {
      const d = num(b[`count_${i}`]) - num(a[`count_${i}`])
      if (d !== 0) return d
    }
    return 0
  }
  // Ties in ClickHouse's order of strings (bytes), as the ranking above breaks them.
  const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  const ordered = [...rows].sort((a, b) => furthest(a, b) || byBytes(String(a.value), String(b.value)))
  return { results: ordered.map(stepsOf), resolvedDateRange }
}

/**
 * The persons of `per_person` with the breakdown value they count under (`value`): PostHog keeps
 * the values that reached furthest (the most persons at the last step, then at the one before, ...)
 * and puts the others in one Other row. The persons are walked once: each person's row carries its
 * value's counts (window functions), which rank the values.
 */
export function valuesRankedSql(query: FunnelsQuery, n: number, brokenDown: boolean, params: SqlParams): string {
  if (!brokenDown) return `SELECT actor, breakdown_value AS value, level, times FROM per_person`
  const limit = params.add('UInt32', query.breakdownFilter?.breakdown_limit ?? DEFAULT_BREAKDOWN_LIMIT)
  const reached = Array.from(
    { length: n },
    (_, i) => `countIf(level >= ${i + 1}) OVER (PARTITION BY breakdown_value) AS reached_${i}`,
  ).join(', ')
  const furthestFirst = Array.from({ length: n }, (_, i) => `reached_${n - 1 - i} DESC`).join(', ')
  return `SELECT actor, if(rank <= ${limit}, breakdown_value, '${FUNNEL_OTHER}') AS value, level, times FROM (
      SELECT actor, level, times, breakdown_value, dense_rank() OVER (ORDER BY ${furthestFirst}, breakdown_value) AS rank
      FROM (SELECT actor, level, times, breakdown_value, ${reached} FROM per_person)
    )`
}

/** A person's value under first or last touch attribution: of its earliest or latest event with one ('' when none has). */
function touchedValueSql(valueSql: string, attribution: Attribution): string {
  const pick = attribution.kind === 'last_touch' ? 'argMaxIf' : 'argMinIf'
  return `${pick}(${valueSql}, e.timestamp, ${valueSql} != '')`
}

/**
 * Ordered funnels without exclusions: per person, the furthest chain from any first step, the
 * earliest such start first. Gives `level`, `times` (0 past the level) and `breakdown_value`
 * (`valueSql` an aggregate over the person's events).
 *
 * Starts whose next second step is the same event share the rest of their chain; of those, the
 * latest has the most room in the window, so only it needs walking (one per second-step event,
 * not one per first-step event). The answer's start is then the earliest of its group that still
 * holds the chain in its window; a person whose chains all stop at the first step starts at the
 * first one.
 */
function chainedPersonsSql(options: {
  steps: Array<{ event: string | null }>
  eventsSql: string
  joins: string[]
  valueSql: string
}): string {
  const { steps, eventsSql, joins, valueSql } = options
  const n = steps.length
  const stepArrays = steps
    .map((_, i) => `arraySort(groupArrayIf(toUnixTimestamp64Micro(e.timestamp) / 1e6, e.step_${i})) AS s${i}`)
    .join(',\n        ')
  const same = steps.map((s, i) => i > 0 && s.event === steps[i - 1]!.event && s.event !== null)
  // The starts whose next second step is `hi`, the second step before it being `lo` (0 for none):
  // (lo, hi], or [lo, hi) when both steps are the same event and a step must follow the start.
  const inGroup = (t: string, lo: string, hi: string) => (same[1] ? `${t} >= ${lo} AND ${t} < ${hi}` : `${t} > ${lo} AND ${t} <= ${hi}`)
  const latestStarts = `arrayFilter(t -> t > 0, arrayMap((hi, lo) -> arrayLast(t -> ${inGroup('t', 'lo', 'hi')}, s0), s1, arrayPopBack(arrayPushFront(s1, 0))))`
  const chains = `arrayMap(t0 -> arrayConcat([t0], ${chainSql(1, n, same)}), ${latestStarts})`
  const firstOnly = `arrayConcat([s0[1]], arrayWithConstant(${n - 1}, 0.))`
  const earliestOfGroup = `arrayFirst(t -> ${inGroup('t', 'arrayLast(x -> x < walked[2], s1)', 'walked[2]')} AND t + {window:Float64} >= walked[walked_level], s0)`
  return `SELECT actor, arrayCount(x -> x > 0, best) AS level, best AS times, breakdown_value FROM (
      SELECT actor, if(empty(walked) OR walked_level <= 1, ${firstOnly}, arrayConcat([${earliestOfGroup}], arrayPopFront(walked))) AS best,
        breakdown_value
      FROM (
        SELECT actor, arraySort(c -> (-arrayCount(x -> x > 0, c), c[1]), ${chains}) [1] AS walked,
          arrayCount(x -> x > 0, walked) AS walked_level, s0, s1, breakdown_value
        FROM (
          SELECT ${ACTOR} AS actor,
            ${valueSql} AS breakdown_value,
            ${stepArrays}
          FROM (${eventsSql}) AS e
          ${joins.join(' ')}
          GROUP BY actor
        )
        WHERE length(s0) > 0
      )
    )`
}

/** What walking persons' events takes: the funnel's order, its events, how they join persons, and how values are attributed. */
interface WalkInputs {
  order: 'ordered' | 'strict' | 'unordered'
  eventsSql: string
  joins: string[]
  valueSql: string
  guarded: number[][]
  attribution: Attribution
}

/**
 * Each person's events as PostHog's walk takes them, grouped by the breakdown attribution: `rows`
 * gives `raw` and `breakdown_value` per person (per person and value for all_events and step),
 * and `events` is the expression of the events to walk: `(seconds, steps, value[, period])`
 * tuples in time order, thinned as PostHog thins them, a step attributed to its value counting
 * only events with the value being walked.
 */
function personEventsSql(
  options: WalkInputs & {
    /** The steps numbered on the events (the first `steps` of the funnel). */
    steps: number
    /**
     * An expression of the event's period, added to each tuple (funnel trends). The events are then
     * not thinned: dropping a first step between two others could drop the only entry of a period.
     */
    period?: string
  },
): { rows: string; events: string } {
  const { steps: n, order, eventsSql, joins, valueSql, guarded, attribution } = options
  // Steps numbered from 1, then the guarded steps as -(i + 1): PostHog's order, which the walk relies on.
  const numbers = [
    ...Array.from({ length: n }, (_, i) => `toInt8(if(e.step_${i}, ${i + 1}, 0))`),
    ...guarded.flatMap((js, i) => (i > 0 && js.length > 0 ? [`toInt8(if(e.exclusion_${i}, ${-(i + 1)}, 0))`] : [])),
  ]
  const stepsOf = `arrayFilter(x -> x != 0, [${numbers.join(', ')}])`
  const starts = order === 'unordered' ? `arrayExists(x -> x > 0, ${stepsOf})` : 'e.step_0'
  const thinned = options.period === undefined ? thinnedEventsSql('raw') : 'raw'
  const period = options.period === undefined ? '' : `, ${options.period}`
  // In an unordered funnel the attributed step is whichever the attempt takes first, so the walk,
  // not the events, decides which events an attributed value admits.
  const stepFiltered = attribution.kind === 'step' && order !== 'unordered'
  const events = stepFiltered
    ? `arrayMap(x -> (x.1, if(x.3 = breakdown_value, x.2, arrayFilter(s -> s != ${attribution.step + 1}, x.2)), x.3${
        options.period === undefined ? '' : ', x.4'
      }), ${thinned})`
    : thinned
  const raw = `arraySort(x -> (x.1, x.2), groupArray((toUnixTimestamp64Micro(e.timestamp) / 1e6, ${stepsOf}, ${valueSql}${period}))) AS raw`
  const value =
    attribution.kind === 'all_events'
      ? `${valueSql} AS breakdown_value`
      : attribution.kind === 'step'
        ? `${stepFiltered ? `groupUniqArrayIf(${valueSql}, e.step_${attribution.step})` : `groupUniqArray(${valueSql})`} AS step_values`
        : `${touchedValueSql(valueSql, attribution)} AS breakdown_value`
  // Every value walked on its own: the person's events with that value (all_events) or each
  // value its step events have (step; a person without one of those is not counted), in an
  // unordered funnel each value any of its events has.
  const groupBy = attribution.kind === 'all_events' ? 'actor, breakdown_value' : 'actor'
  const perPerson = `SELECT ${ACTOR} AS actor, ${value}, ${raw}
        FROM (${eventsSql}) AS e
        ${joins.join(' ')}
        GROUP BY ${groupBy}
        HAVING countIf(${starts}) > 0`
  const rows = attribution.kind === 'step' ? `SELECT actor, raw, arrayJoin(step_values) AS breakdown_value FROM (${perPerson})` : perPerson
  return { rows, events }
}

/**
 * Strict and unordered funnels, funnels with exclusions, and breakdowns attributed to every value
 * or to a step: PostHog's walk over each person's events (`./attempts`). Persons whose counted
 * attempt is excluded, or who reached no step, are not counted at all.
 */
function walkedPersonsSql(options: WalkInputs & { n: number }): string {
  const { n, order } = options
  const { rows, events } = personEventsSql({ ...options, steps: n })
  const attempt =
    order === 'unordered'
      ? unorderedAttemptSql({
          events,
          steps: n,
          windowSeconds: '{window:Float64}',
          attributedStep: options.attribution.kind === 'step' ? options.attribution.step : undefined,
        })
      : orderedAttemptSql({ events, steps: n, windowSeconds: '{window:Float64}', strict: order === 'strict' })
  return `SELECT actor, tupleElement(attempt, 1) AS level, tupleElement(attempt, 3) AS times, breakdown_value FROM (
      SELECT actor, ${attempt} AS attempt, breakdown_value
      FROM (${rows})
    )
    WHERE level > 0 AND tupleElement(attempt, 2) = 0`
}
