import { INTERVALS, problems, type EventsNode, type FunnelsQuery, type Interval } from '@burrow/contracts'

type Exclusion = NonNullable<NonNullable<FunnelsQuery['funnelsFilter']>['exclusions']>[number]

/**
 * Breakdown attribution to a step: a step of the funnel, and in an unordered funnel what PostHog
 * allows. PostHog checks the unordered rule when it counts steps, not in funnel trends, whose walk
 * takes any step.
 */
function validateAttribution(query: FunnelsQuery): void {
  const filter = query.funnelsFilter
  if (filter?.breakdownAttributionType !== 'step') return
  const step = filter.breakdownAttributionValue ?? 0
  if (step > query.series.length - 1) {
    throw problems.validation(
      'breakdownAttributionValue',
      `The breakdown attribution step is out of bounds. It must be between 0 and ${query.series.length - 1}.`,
    )
  }
  if (filter.funnelOrderType === 'unordered' && filter.funnelVizType !== 'trends' && step !== 0) {
    throw problems.validation(null, 'Only the first step can be used for breakdown attribution in unordered funnels')
  }
}

/**
 * One property filter as PostHog compares two nodes: by type, key, operator and value, never by
 * the order the filters were written in. Filters PostHog treats as empty say nothing.
 */
function propertyRepr(filter: unknown): string {
  if (filter === null || typeof filter !== 'object') return JSON.stringify(filter) ?? ''
  const f = filter as Record<string, unknown>
  if (Object.keys(f).length === 0 || f.type === 'empty') return ''
  const text = (v: unknown) => JSON.stringify(v ?? null)
  const type = f.type ?? 'event'
  if (type === 'hogql' || type === 'cohort') return `${text(type)}: ${text(f.key)} ${text(f.value)}`
  return `${text(type)}: ${text(f.key)} ${text(f.operator ?? 'exact')} ${text(f.value)}`
}

function propertyReprs(properties: unknown): string[] {
  if (properties === undefined || properties === null) return []
  // A property group is compared whole: PostHog's nodes only ever carry a flat list.
  const list = Array.isArray(properties) ? properties : [properties]
  return list
    .map(propertyRepr)
    .filter((r) => r !== '')
    .sort()
}

/**
 * PostHog's `is_equal(step, exclusion) or is_superset(step, exclusion)`: the same event, and every
 * filter of the step also on the exclusion, so every excluded event would also be a step event.
 */
function stepCoversExclusion(step: EventsNode, exclusion: Exclusion): boolean {
  if (step.kind !== exclusion.kind) return false
  if (step.kind === 'ActionsNode' ? step.id !== exclusion.id : (step.event ?? null) !== (exclusion.event ?? null)) return false
  const left = propertyReprs(exclusion.properties)
  for (const repr of propertyReprs(step.properties)) {
    const at = left.indexOf(repr)
    if (at === -1) return false
    left.splice(at, 1)
  }
  return true
}

/** The interval funnel trends are computed by: PostHog's default a day. */
function trendsInterval(query: FunnelsQuery): Interval {
  const interval = query.interval ?? 'day'
  if (!(INTERVALS as readonly string[]).includes(interval)) {
    throw problems.validation('interval', `"${interval}" is not a valid interval: use one of ${INTERVALS.join(', ')}.`)
  }
  return interval as Interval
}

/** PostHog's funnel validation rules, with its messages; answers the interval the funnel is computed by. */
export function validateFunnel(query: FunnelsQuery): Interval {
  validateAttribution(query)
  const filter = query.funnelsFilter
  if (!filter) return 'day'
  const maxIndex = query.series.length - 1
  if (filter.funnelFromStep !== null && filter.funnelFromStep !== undefined) {
    if (!(filter.funnelFromStep >= 0 && filter.funnelFromStep <= maxIndex - 1)) {
      throw problems.validation(null, `funnelFromStep is out of bounds. It must be between 0 and ${maxIndex - 1}.`)
    }
  }
  if (filter.funnelToStep !== null && filter.funnelToStep !== undefined) {
    if (!(filter.funnelToStep >= 1 && filter.funnelToStep <= maxIndex)) {
      throw problems.validation(null, `funnelToStep is out of bounds. It must be between 1 and ${maxIndex}.`)
    }
    if (filter.funnelFromStep !== null && filter.funnelFromStep !== undefined && filter.funnelFromStep >= filter.funnelToStep) {
      throw problems.validation(null, 'Funnel step range is invalid. funnelToStep should be greater than funnelFromStep.')
    }
  }
  const exclusions = filter.exclusions ?? []
  // Checked where PostHog counts steps; its unordered trends walk drops an attempt at any exclusion.
  if (filter.funnelOrderType === 'unordered' && filter.funnelVizType !== 'trends') {
    for (const exclusion of exclusions) {
      if (exclusion.funnelFromStep !== 0 || exclusion.funnelToStep !== maxIndex) {
        throw problems.validation(null, 'Partial Exclusions not allowed in unordered funnels')
      }
    }
  }
  for (const exclusion of exclusions) {
    if (exclusion.funnelFromStep >= exclusion.funnelToStep) {
      throw problems.validation(null, 'Exclusion event range is invalid. End of range should be greater than start.')
    }
    if (exclusion.funnelFromStep >= maxIndex) {
      throw problems.validation(null, 'Exclusion event range is invalid. Start of range is greater than number of steps.')
    }
    if (exclusion.funnelToStep > maxIndex) {
      throw problems.validation(null, 'Exclusion event range is invalid. End of range is greater than number of steps.')
    }
    for (const step of query.series.slice(exclusion.funnelFromStep, exclusion.funnelToStep + 1)) {
      if (stepCoversExclusion(step, exclusion)) {
        throw problems.validation(null, "Exclusion steps cannot contain an event that's part of funnel steps.")
      }
    }
  }
  return filter.funnelVizType === 'trends' ? trendsInterval(query) : 'day'
}
