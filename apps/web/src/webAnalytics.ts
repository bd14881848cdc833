// The Web analytics page's queries and how their answers read: PostHog's WebOverviewQuery for the
// five numbers and its WebStatsTableQuery for the table of the chosen tab, both run by `/query/`.

/** The date ranges the page offers, as PostHog's relative dates; the first is the default. */
export const DATE_PRESETS = [
  ['-7d', 'Last 7 days'],
  ['dStart', 'Today'],
  ['-30d', 'Last 30 days'],
  ['-90d', 'Last 90 days'],
] as const
export type DatePreset = (typeof DATE_PRESETS)[number][0]
export const DEFAULT_PRESET: DatePreset = '-7d'

/** The tables, by the URL's `tab`: PostHog's breakdown and what a row's value is. */
export const TABS = [
  // The paths table has the bounce rate of the sessions that entered on each path, as PostHog's does.
  { tab: 'paths', label: 'Paths', breakdownBy: 'Page', column: 'Path', bounce: true },
  { tab: 'entry', label: 'Entry paths', breakdownBy: 'InitialPage', column: 'Entry path', bounce: false },
  { tab: 'referrers', label: 'Referring domains', breakdownBy: 'InitialReferringDomain', column: 'Referring domain', bounce: false },
  { tab: 'utm', label: 'UTM sources', breakdownBy: 'InitialUTMSource', column: 'UTM source', bounce: false },
  { tab: 'countries', label: 'Countries', breakdownBy: 'Country', column: 'Country', bounce: false },
  { tab: 'browsers', label: 'Browsers', breakdownBy: 'Browser', column: 'Browser', bounce: false },
  { tab: 'os', label: 'OS', breakdownBy: 'OS', column: 'OS', bounce: false },
  { tab: 'devices', label: 'Device types', breakdownBy: 'DeviceType', column: 'Device type', bounce: false },
] as const
export type WebTab = (typeof TABS)[number]['tab']
export const DEFAULT_TAB: WebTab = 'paths'

/** A URL's `date_from`, when it is one of the presets. */
export const presetOf = (value: unknown): DatePreset | undefined => DATE_PRESETS.find(([p]) => p === value)?.[0]

/** A calendar day as `YYYY-MM-DD` (a custom range's ends), when the text is one. */
export function dayOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined
  return Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ? undefined : value
}

/** The page's date range: a preset up to now, or a custom range of days (`date_to` the last day, included). */
export interface WebRange {
  /** A preset (`-7d`) or a first day (`2026-11-01`). */
  from: string
  to?: string | undefined
}

/** The range a URL asks for: a preset, or a custom first day (and last day); the default preset otherwise. */
export function rangeOf(dateFrom: unknown, dateTo: unknown): WebRange {
  const preset = presetOf(dateFrom)
  if (preset) return { from: preset }
  const from = dayOf(dateFrom)
  const to = dayOf(dateTo)
  return from ? { from, ...(to && to >= from ? { to } : {}) } : { from: DEFAULT_PRESET }
}

/** Whether the range is a custom one (days rather than a preset). */
export const isCustom = (range: WebRange): boolean => presetOf(range.from) === undefined

/** An event property equal to a value, which the page's numbers and tables are filtered by. */
export interface WebFilter {
  property?: string | undefined
  value?: string | undefined
}

const propertiesOf = (filter: WebFilter = {}) =>
  filter.property && filter.value !== undefined ? [{ key: filter.property, value: filter.value, operator: 'exact', type: 'event' }] : []

const dateRangeOf = (range: WebRange | DatePreset) => {
  const r = typeof range === 'string' ? { from: range } : range
  return { date_from: r.from, date_to: r.to ?? null }
}

/** A URL's `tab`, when it is one of the tabs. */
export const tabOf = (value: unknown): WebTab | undefined => TABS.find((t) => t.tab === value)?.tab

const tabInfo = (tab: WebTab) => TABS.find((t) => t.tab === tab) ?? TABS[0]

/** The overview's query: the range up to now, beside the period before it. */
export function overviewQuery(range: WebRange | DatePreset, filter?: WebFilter) {
  return {
    kind: 'WebOverviewQuery' as const,
    dateRange: dateRangeOf(range),
    properties: propertiesOf(filter),
    compareFilter: { compare: true },
  }
}

/** A tab's table query: its breakdown over the range, most visitors first. */
export function tableQuery(range: WebRange | DatePreset, tab: WebTab, filter?: WebFilter) {
  return {
    kind: 'WebStatsTableQuery' as const,
    dateRange: dateRangeOf(range),
    properties: propertiesOf(filter),
    breakdownBy: tabInfo(tab).breakdownBy,
    ...(tabInfo(tab).bounce ? { includeBounceRate: true } : {}),
    limit: 100,
  }
}

/** One of the overview's numbers, labelled, with the previous period's. */
export interface Tile {
  key: string
  label: string
  value: string
  previous: string
  /** The change from the previous period in percent, rounded by the service, or null. */
  change: number | null
  /** Whether a rise is bad news (the bounce rate), so the change is shown as such. */
  increaseIsBad: boolean
}

const LABELS: Record<string, string> = {
  visitors: 'Visitors',
  views: 'Page views',
  sessions: 'Sessions',
  'session duration': 'Session duration',
  'bounce rate': 'Bounce rate',
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 })

/** Seconds as PostHog's tiles show them: `45s`, `3m 20s`, `1h 5m`. */
export function durationWords(seconds: number): string {
  const s = Math.round(seconds)
  if (s < 60) return `${s}s`
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  return h > 0 ? `${h}h ${m}m` : `${m}m ${s % 60}s`
}

/** A tile's number in its kind's words; no number is a dash. */
export function formatValue(kind: unknown, value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—'
  if (kind === 'duration_s') return durationWords(value)
  if (kind === 'percentage') return `${oneDecimal.format(value)}%`
  return integer.format(value)
}

const record = (x: unknown): Record<string, unknown> => (typeof x === 'object' && x !== null ? (x as Record<string, unknown>) : {})

/** The overview's answer as tiles, in the service's order. */
export function tilesOf(answer: unknown): Tile[] {
  const results = record(answer).results
  if (!Array.isArray(results)) return []
  return results.map((item) => {
    const { key, kind, value, previous, changeFromPreviousPct, isIncreaseBad } = record(item)
    const k = String(key)
    return {
      key: k,
      label: LABELS[k] ?? k,
      value: formatValue(kind, value),
      previous: formatValue(kind, previous),
      change: typeof changeFromPreviousPct === 'number' ? changeFromPreviousPct : null,
      increaseIsBad: isIncreaseBad === true,
    }
  })
}

/** Whether the overview counted no page view in the range. */
export function noViews(answer: unknown): boolean {
  const results = record(answer).results
  if (!Array.isArray(results)) return true
  const views = results.map(record).find((item) => item.key === 'views')?.value
  return typeof views !== 'number' || views === 0
}

/** One row of a table: the breakdown's value, its visitors and views, and where asked for the bounce rate (0 to 1, or null). */
export interface TableRow {
  value: string
  visitors: number
  views: number
  bounceRate?: number | null
}

/** The value's count of a `[current, previous]` pair. */
const current = (pair: unknown): number => (Array.isArray(pair) && typeof pair[0] === 'number' ? pair[0] : 0)

/** A table's answer as rows; a session without the breakdown's value (a UTM tag) reads `(none)`. */
export function rowsOf(answer: unknown): TableRow[] {
  const results = record(answer).results
  if (!Array.isArray(results)) return []
  return results.filter(Array.isArray).map((row: unknown[]) => ({
    value:
      row[0] === null || row[0] === undefined || row[0] === '' ? '(none)' : typeof row[0] === 'string' ? row[0] : JSON.stringify(row[0]),
    visitors: current(row[1]),
    views: current(row[2]),
    // The bounce rate is a [current, previous] pair when the query asked for it; a row nobody entered on has none.
    ...(Array.isArray(row[3]) ? { bounceRate: typeof row[3][0] === 'number' && Number.isFinite(row[3][0]) ? row[3][0] : null } : {}),
  }))
}

/** A bounce rate (a fraction) as the table shows it; none is a dash. */
export const rateWords = (rate: number | null | undefined): string => (typeof rate === 'number' ? `${oneDecimal.format(rate * 100)}%` : '—')

/** A count as the table shows it. */
export const countWords = (n: number): string => integer.format(n)

/** The tab's label and column heading. */
export const tabLabels = (tab: WebTab): { label: string; column: string } => tabInfo(tab)
