/**
 * The insight builder's form and the PostHog query it stands for. The URL keeps the query
 * (`?q=` its JSON), so a link redraws the same chart; the form is read back from it.
 */

export const KINDS = [
  ['TrendsQuery', 'Trends'],
  ['FunnelsQuery', 'Funnels'],
  ['RetentionQuery', 'Retention'],
  ['LifecycleQuery', 'Lifecycle'],
  ['StickinessQuery', 'Stickiness'],
  ['PathsQuery', 'Paths'],
] as const
export type Kind = (typeof KINDS)[number][0]

export const MATHS = [
  ['total', 'Total count'],
  ['dau', 'Unique users'],
  ['weekly_active', 'Weekly active users'],
  ['monthly_active', 'Monthly active users'],
  ['sum', 'Sum of a property'],
  ['avg', 'Average of a property'],
  ['min', 'Minimum of a property'],
  ['max', 'Maximum of a property'],
  ['median', 'Median of a property'],
] as const
export type Math = (typeof MATHS)[number][0]
const PROPERTY_MATHS: readonly Math[] = ['sum', 'avg', 'min', 'max', 'median']
export const needsProperty = (math: Math): boolean => PROPERTY_MATHS.includes(math)

export const DISPLAYS = [
  ['ActionsLineGraph', 'Line'],
  ['ActionsLineGraphCumulative', 'Cumulative line'],
  ['ActionsBar', 'Bars'],
  ['BoldNumber', 'Number'],
  ['ActionsTable', 'Table'],
  ['ActionsPie', 'Pie'],
] as const
export type Display = (typeof DISPLAYS)[number][0]

export const INTERVALS = ['hour', 'day', 'week', 'month'] as const
export type Interval = (typeof INTERVALS)[number]
export const WINDOW_UNITS = ['minute', 'hour', 'day', 'week', 'month'] as const
export const ORDERS = [
  ['ordered', 'Sequential'],
  ['strict', 'Strict order'],
  ['unordered', 'Any order'],
] as const
export const PERIODS = ['Day', 'Week', 'Month'] as const
export const BREAKDOWN_TYPES = [
  ['event', 'Event property'],
  ['person', 'Person property'],
] as const
/** A trend also breaks down by cohorts (each a row, and all users) or by a HogQL expression over each event. */
export const TRENDS_BREAKDOWN_TYPES = [...BREAKDOWN_TYPES, ['cohort', 'Cohort'], ['hogql', 'HogQL expression']] as const
export type BreakdownType = (typeof TRENDS_BREAKDOWN_TYPES)[number][0]
/** A funnel breaks down by a property or a HogQL expression, never by cohorts. */
export const FUNNEL_BREAKDOWN_TYPES = TRENDS_BREAKDOWN_TYPES.filter(([t]) => t !== 'cohort')
/** A cohort breakdown's row of every person, as PostHog names it. */
export const ALL_USERS = 'all'
/** Trends break down by up to three properties at once (PostHog's limit); funnels by one. */
export const MAX_BREAKDOWNS = { TrendsQuery: 3, FunnelsQuery: 1 } as const
/** Smoothing of a daily trend, as PostHog offers it: the moving average's length in days. */
export const SMOOTHINGS = [
  [1, 'No smoothing'],
  [7, '7-day'],
  [28, '28-day'],
] as const
/** Properties whose values are URLs, which a breakdown can normalize (as PostHog offers it for them). */
const URL_PROPERTIES = ['$current_url', '$pathname']
export const isUrlProperty = (property: string): boolean => URL_PROPERTIES.includes(property.trim())
/** What a path is made of (PostHog's `includeEventTypes`); none chosen is every event. */
export const PATH_EVENT_TYPES = [
  ['$pageview', 'Page views'],
  ['$screen', 'Screens'],
  ['custom_event', 'Custom events'],
] as const
export type PathEventType = (typeof PATH_EVENT_TYPES)[number][0]
/** The steps a path is followed for: the service's bounds, PostHog's default. */
export const STEP_LIMIT = { min: 2, max: 20, default: 5 } as const
const clampSteps = (n: number) => Math.min(STEP_LIMIT.max, Math.max(STEP_LIMIT.min, Math.trunc(n)))
/** PostHog's default number of bins of a numeric breakdown. */
export const DEFAULT_HISTOGRAM_BINS = 10

export interface BreakdownForm {
  /** The property's name, or with `hogql` the expression. */
  property: string
  type: BreakdownType
  /** With `cohort`: the cohorts' ids, and `all` for every person. */
  cohorts?: (number | typeof ALL_USERS)[] | undefined
}

/** Whether a breakdown row asks for anything yet: a property or expression typed, or a cohort chosen. */
export const isBreakdownSet = (b: BreakdownForm): boolean => (b.type === 'cohort' ? (b.cohorts ?? []).length > 0 : b.property.trim() !== '')

export interface SeriesForm {
  event: string
  math: Math
  property: string
  /** One of the project's actions in place of the event (an ActionsNode); none for an event. */
  actionId?: number | undefined
}

export interface BuilderForm {
  kind: Kind
  /** Trends, stickiness: the series; funnels: the steps; lifecycle: the first one. */
  series: SeriesForm[]
  dateFrom: string
  dateTo: string
  interval: Interval
  /** The properties to break down by (trends: up to three; funnels: the first); a row with no property is none. */
  breakdowns: BreakdownForm[]
  /** Trends with one breakdown: that many bins of its numeric values; 0 for none. */
  histogramBins: number
  /** Trends: URL breakdowns ($current_url, $pathname) without their trailing `/`, `?` and `#`. */
  normalizeUrl: boolean
  /** Daily trends: each day as the average of this many days up to it; 1 for none. */
  smoothing: number
  compare: boolean
  /** Trends: the series combined by letter (`A/B`), drawn instead of them; empty for none. */
  formula: string
  display: Display
  windowInterval: number
  windowUnit: (typeof WINDOW_UNITS)[number]
  order: (typeof ORDERS)[number][0]
  startEvent: string
  returnEvent: string
  /** Retention: one of the project's actions in place of the start (return) event; none for the event. */
  startActionId?: number | undefined
  returnActionId?: number | undefined
  period: (typeof PERIODS)[number]
  totalIntervals: number
  pathEventTypes: PathEventType[]
  /** Paths: the item every path starts (ends) at, a URL, screen or event name; empty for none. */
  startPoint: string
  endPoint: string
  stepLimit: number
}

export const DEFAULT_FORM: BuilderForm = {
  kind: 'TrendsQuery',
  series: [{ event: '$pageview', math: 'total', property: '' }],
  dateFrom: '-7d',
  dateTo: '',
  interval: 'day',
  breakdowns: [],
  histogramBins: 0,
  normalizeUrl: false,
  smoothing: 1,
  compare: false,
  formula: '',
  display: 'ActionsLineGraph',
  windowInterval: 14,
  windowUnit: 'day',
  order: 'ordered',
  startEvent: '$pageview',
  returnEvent: '$pageview',
  period: 'Day',
  totalIntervals: 8,
  pathEventTypes: ['$pageview'],
  startPoint: '',
  endPoint: '',
  stepLimit: STEP_LIMIT.default,
}

/** An insight query kind as the service takes it: PostHog's shape, kept loose. */
export type InsightSource = { kind: Kind } & Record<string, unknown>

/** A series or step: an action by its id (the service answers its name), or an event (none: every event). */
const seriesNode = (s: SeriesForm, withMath: boolean): Record<string, unknown> => ({
  ...(s.actionId !== undefined
    ? { kind: 'ActionsNode', id: s.actionId }
    : {
        kind: 'EventsNode',
        event: s.event.trim() === '' ? null : s.event.trim(),
        name: s.event.trim() === '' ? 'All events' : s.event.trim(),
      }),
  ...(withMath && s.math !== 'total' ? { math: s.math } : {}),
  ...(withMath && needsProperty(s.math) && s.property.trim() ? { math_property: s.property.trim() } : {}),
})

const dateRangeOf = (form: BuilderForm) => ({
  date_from: form.dateFrom.trim() || '-7d',
  ...(form.dateTo.trim() ? { date_to: form.dateTo.trim() } : {}),
})

/** The breakdown rows that ask for something, trimmed. */
const breakdownsOf = (form: BuilderForm): BreakdownForm[] =>
  form.breakdowns.filter(isBreakdownSet).map((b) => ({ ...b, property: b.property.trim() }))

/** A funnel's breakdown: its first property or HogQL expression alone (funnels take no cohort breakdown). */
const funnelBreakdownOf = (form: BuilderForm) => {
  const [first] = breakdownsOf(form)
  return first && first.type !== 'cohort' ? { breakdownFilter: { breakdown_type: first.type, breakdown: first.property } } : {}
}

/**
 * A trend's breakdown: one property as `breakdown` (with its bins or URL normalization), several
 * as `breakdowns`, each URL one normalized when asked (PostHog takes no bins with several).
 */
const trendsBreakdownOf = (form: BuilderForm) => {
  const all = breakdownsOf(form)
  // Cohorts break down alone (PostHog's `breakdowns` take no cohort).
  const cohort = all.find((b) => b.type === 'cohort')
  if (cohort) return { breakdownFilter: { breakdown_type: 'cohort', breakdown: cohort.cohorts } }
  const rows = all
  if (rows.length === 0) return {}
  if (rows.length === 1) {
    const [{ property, type }] = rows as [BreakdownForm]
    const ofProperty = type !== 'hogql'
    return {
      breakdownFilter: {
        breakdown_type: type,
        breakdown: property,
        ...(ofProperty && form.histogramBins > 0 ? { breakdown_histogram_bin_count: Math.min(100, form.histogramBins) } : {}),
        ...(ofProperty && form.normalizeUrl && isUrlProperty(property) ? { breakdown_normalize_url: true } : {}),
      },
    }
  }
  return {
    breakdownFilter: {
      breakdowns: rows.slice(0, MAX_BREAKDOWNS.TrendsQuery).map(({ property, type }) => ({
        property,
        type,
        ...(form.normalizeUrl && type !== 'hogql' && isUrlProperty(property) ? { normalize_url: true } : {}),
      })),
    },
  }
}

/** The query the form stands for, in PostHog's shape, which `/query/` runs and an insight keeps. */
export function queryOf(form: BuilderForm): InsightSource {
  const dateRange = dateRangeOf(form)
  switch (form.kind) {
    case 'TrendsQuery':
      return {
        kind: 'TrendsQuery',
        series: form.series.map((s) => seriesNode(s, true)),
        interval: form.interval,
        dateRange,
        trendsFilter: {
          display: form.display,
          ...(form.interval === 'day' && form.smoothing > 1 ? { smoothingIntervals: Math.min(366, form.smoothing) } : {}),
          ...(form.formula.trim() ? { formula: form.formula.trim() } : {}),
        },
        ...trendsBreakdownOf(form),
        ...(form.compare ? { compareFilter: { compare: true } } : {}),
      }
    case 'FunnelsQuery':
      return {
        kind: 'FunnelsQuery',
        series: form.series.map((s) => seriesNode(s, false)),
        dateRange,
        funnelsFilter: {
          funnelWindowInterval: Math.max(1, form.windowInterval),
          funnelWindowIntervalUnit: form.windowUnit,
          funnelOrderType: form.order,
          funnelVizType: 'steps',
        },
        ...funnelBreakdownOf(form),
      }
    case 'RetentionQuery': {
      const entity = (event: string, actionId: number | undefined) =>
        actionId !== undefined
          ? { id: actionId, type: 'actions' }
          : { id: event.trim() || null, name: event.trim() || 'All events', type: 'events' }
      return {
        kind: 'RetentionQuery',
        dateRange,
        retentionFilter: {
          targetEntity: entity(form.startEvent, form.startActionId),
          returningEntity: entity(form.returnEvent, form.returnActionId),
          period: form.period,
          totalIntervals: Math.min(120, Math.max(1, form.totalIntervals)),
          retentionType: 'retention_first_time',
        },
      }
    }
    case 'LifecycleQuery':
      return {
        kind: 'LifecycleQuery',
        series: form.series.slice(0, 1).map((s) => seriesNode(s, false)),
        interval: form.interval,
        dateRange,
      }
    case 'StickinessQuery':
      return {
        kind: 'StickinessQuery',
        series: form.series.map((s) => seriesNode(s, false)),
        interval: form.interval,
        dateRange,
        ...(form.compare ? { compareFilter: { compare: true } } : {}),
      }
    case 'PathsQuery':
      return {
        kind: 'PathsQuery',
        dateRange,
        pathsFilter: {
          includeEventTypes: form.pathEventTypes,
          ...(form.startPoint.trim() ? { startPoint: form.startPoint.trim() } : {}),
          ...(form.endPoint.trim() ? { endPoint: form.endPoint.trim() } : {}),
          stepLimit: clampSteps(form.stepLimit || STEP_LIMIT.default),
        },
      }
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const str = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback)
const oneOf = <T extends string>(values: readonly T[], v: unknown, fallback: T): T => (values.includes(v as T) ? (v as T) : fallback)
const mathValues = MATHS.map(([m]) => m)

const propertyName = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '')

/** The breakdown settings of a query's `breakdownFilter`: its `breakdowns` when it has them (as PostHog reads it), or its one `breakdown`. */
function breakdownFormOf(filter: unknown): Pick<BuilderForm, 'breakdowns' | 'histogramBins' | 'normalizeUrl'> {
  if (!isRecord(filter)) return { breakdowns: [], histogramBins: 0, normalizeUrl: false }
  const types = FUNNEL_BREAKDOWN_TYPES.map(([t]) => t)
  if (Array.isArray(filter.breakdowns) && filter.breakdowns.length > 0) {
    const rows = filter.breakdowns.filter(isRecord)
    return {
      breakdowns: rows.map((b) => ({ property: propertyName(b.property), type: oneOf(types, b.type, 'event') })),
      histogramBins: 0,
      normalizeUrl: rows.some((b) => b.normalize_url === true),
    }
  }
  if (filter.breakdown_type === 'cohort') {
    const ids: unknown[] = Array.isArray(filter.breakdown) ? filter.breakdown : [filter.breakdown]
    const cohorts = ids.flatMap((id): (number | typeof ALL_USERS)[] =>
      id === ALL_USERS ? [ALL_USERS] : typeof id === 'number' && Number.isSafeInteger(id) ? [id] : [],
    )
    return { breakdowns: cohorts.length ? [{ property: '', type: 'cohort', cohorts }] : [], histogramBins: 0, normalizeUrl: false }
  }
  const one: unknown = Array.isArray(filter.breakdown) ? (filter.breakdown as unknown[])[0] : filter.breakdown
  const property = propertyName(one)
  return {
    breakdowns: property ? [{ property, type: oneOf(types, filter.breakdown_type, 'event') }] : [],
    histogramBins: typeof filter.breakdown_histogram_bin_count === 'number' ? filter.breakdown_histogram_bin_count : 0,
    normalizeUrl: filter.breakdown_normalize_url === true,
  }
}

/** The form of a query (from a URL or a saved insight); what the form cannot show takes its default. */
export function formOf(source: unknown): BuilderForm {
  if (!isRecord(source)) return DEFAULT_FORM
  const kind = oneOf(
    KINDS.map(([k]) => k),
    source.kind,
    'TrendsQuery',
  )
  const range = isRecord(source.dateRange) ? source.dateRange : {}
  const series = Array.isArray(source.series)
    ? source.series.filter(isRecord).map((s) => ({
        event: typeof s.event === 'string' ? s.event : '',
        math: oneOf(mathValues, s.math, 'total'),
        property: str(s.math_property, ''),
        ...(s.kind === 'ActionsNode' && typeof s.id === 'number' ? { actionId: s.id } : {}),
      }))
    : []
  const breakdown = breakdownFormOf(source.breakdownFilter)
  const trends = isRecord(source.trendsFilter) ? source.trendsFilter : {}
  const funnels = isRecord(source.funnelsFilter) ? source.funnelsFilter : {}
  const retention = isRecord(source.retentionFilter) ? source.retentionFilter : {}
  const paths = isRecord(source.pathsFilter) ? source.pathsFilter : {}
  const eventTypes = PATH_EVENT_TYPES.map(([t]) => t)
  const entityAction = (e: unknown) => (isRecord(e) && e.type === 'actions' && typeof e.id === 'number' ? e.id : undefined)
  // An action's entity leaves the event field at its default, for when the person goes back to an event.
  const entityEvent = (e: unknown, fallback: string) =>
    isRecord(e) && entityAction(e) === undefined ? (typeof e.id === 'string' ? e.id : '') : fallback
  const startActionId = entityAction(retention.targetEntity)
  const returnActionId = entityAction(retention.returningEntity)
  return {
    kind,
    series: series.length > 0 ? series : DEFAULT_FORM.series,
    dateFrom: str(range.date_from, DEFAULT_FORM.dateFrom),
    dateTo: str(range.date_to, ''),
    interval: oneOf(INTERVALS, source.interval, 'day'),
    ...breakdown,
    smoothing: typeof trends.smoothingIntervals === 'number' && trends.smoothingIntervals > 1 ? trends.smoothingIntervals : 1,
    compare: isRecord(source.compareFilter) && source.compareFilter.compare === true,
    formula: str(trends.formula, ''),
    display: oneOf(
      DISPLAYS.map(([d]) => d),
      trends.display,
      'ActionsLineGraph',
    ),
    windowInterval: typeof funnels.funnelWindowInterval === 'number' ? funnels.funnelWindowInterval : DEFAULT_FORM.windowInterval,
    windowUnit: oneOf(WINDOW_UNITS, funnels.funnelWindowIntervalUnit, 'day'),
    order: oneOf(
      ORDERS.map(([o]) => o),
      funnels.funnelOrderType,
      'ordered',
    ),
    startEvent: entityEvent(retention.targetEntity, DEFAULT_FORM.startEvent),
    returnEvent: entityEvent(retention.returningEntity, DEFAULT_FORM.returnEvent),
    ...(startActionId !== undefined ? { startActionId } : {}),
    ...(returnActionId !== undefined ? { returnActionId } : {}),
    period: oneOf(PERIODS, retention.period, 'Day'),
    totalIntervals: typeof retention.totalIntervals === 'number' ? retention.totalIntervals : DEFAULT_FORM.totalIntervals,
    pathEventTypes: Array.isArray(paths.includeEventTypes)
      ? eventTypes.filter((t) => (paths.includeEventTypes as unknown[]).includes(t))
      : DEFAULT_FORM.pathEventTypes,
    startPoint: str(paths.startPoint, ''),
    endPoint: str(paths.endPoint, ''),
    stepLimit: typeof paths.stepLimit === 'number' ? clampSteps(paths.stepLimit) : DEFAULT_FORM.stepLimit,
  }
}

/** The query of the `?q=` search parameter, or undefined when it is not a query of a kind the builder draws. */
export function parseQueryParam(q: unknown): InsightSource | undefined {
  return isRecord(q) && KINDS.some(([k]) => k === q.kind) ? (q as InsightSource) : undefined
}

/** The runnable query of an insight's `query` (an InsightVizNode's `source`, or the kind itself). */
export function sourceOfInsight(query: Record<string, unknown> | null): InsightSource | undefined {
  if (!query) return undefined
  const inner = query.kind === 'InsightVizNode' ? query.source : query
  return isRecord(inner) && KINDS.some(([k]) => k === inner.kind) ? (inner as InsightSource) : undefined
}

/** What the console says of an insight it does not draw: a SQL one opens to its rows; another kind is named. */
export function undrawnInsight(query: Record<string, unknown> | null): string {
  const inner = query?.kind === 'InsightVizNode' || query?.kind === 'DataTableNode' ? query.source : query
  const kind = inner && typeof inner === 'object' && 'kind' in inner ? String(inner.kind) : undefined
  if (kind === undefined || kind === 'HogQLQuery') return 'A SQL insight: open it to see its rows.'
  return `A ${kind.replace(/Query$/, '')} insight, which the console does not draw: its answer is at the query API.`
}

/**
 * The query with a dashboard's property filter (an event property equal to a value) ANDed to its
 * own filters, as a dashboard's property filter applies to each of its insights.
 */
export function withPropertyFilter(source: InsightSource, property: string | undefined, value: string | undefined): InsightSource {
  if (!property || value === undefined) return source
  const filter = { key: property, value, operator: 'exact', type: 'event' }
  const own = source.properties
  const properties = Array.isArray(own)
    ? [...(own as unknown[]), filter]
    : isRecord(own) && Array.isArray(own.values)
      ? { type: 'AND', values: [own, { type: 'AND', values: [filter] }] }
      : [filter]
  return { ...source, properties }
}

/** The query with a dashboard's date range over its own, as a dashboard's date filter applies. */
export function withDateRange(source: InsightSource, dateFrom: string | undefined): InsightSource {
  if (!dateFrom) return source
  return { ...source, dateRange: { date_from: dateFrom } }
}
