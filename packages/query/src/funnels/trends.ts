/**
 * Funnel trends (funnelVizType `trends`) as PostHog's funnel aggregation computes them: a person
 * enters the funnel in the period of a first-step event, and each period a person entered in
 * counts once, as converted when the person went on to `funnelToStep` within the window, as
 * entered when it reached `funnelFromStep`. The walk keeps, per period entered, when the current
 * attempt entered each step; a later first-step event in a period not yet converted starts that
 * period's attempt again, and a later step event moves every period's attempt on.
 */

const ENTRY = 'Tuple(UInt32, Array(Float64), UInt8, UInt8)'

/**
 * An expression of `Array((period UInt32, success Int8))` for one person: 1 for each period whose
 * attempt converted, -1 for one that reached `fromStep` (1-based) without converting. `events` is
 * `(seconds, steps, value, period)` tuples in time order, steps numbered from 1 up to `toStep`.
 */
export function funnelTrendsWalkSql(options: {
  events: string
  toStep: number
  fromStep: number
  windowSeconds: string
  strict: boolean
}): string {
  const { events, toStep: n, fromStep, windowSeconds: W } = options
  // One item per step an event is tried against, from the last; in a strict funnel a reset item
  // (step 0) after each event, which clears the steps that event is not.
  const reset = options.strict ? ', [(x.1, x.4, toInt8(0), x.2)]' : ''
  const items = `arrayFlatten(arrayMap(x -> arrayConcat(arrayMap(s -> (x.1, x.4, s, x.2), arrayReverse(x.2))${reset}), ${events}))`
  const entryOf = (e: string, i: number) => `tupleElement(${e}, ${i})`
  const state = `Array(${ENTRY})`

  // A first-step event: a new attempt in its period, or the period's attempt entered again (not
  // once it converted).
  const found = `arrayFirstIndex(e -> ${entryOf('e', 1)} = it.2, acc)`
  const entered = `arrayPushBack(acc, CAST((it.2, arrayConcat([it.1], arrayResize(CAST([], 'Array(Float64)'), ${n - 1}, 0.)), 1, 0), '${ENTRY}'))`
  const reentered = `arrayMap((e, k) -> if(k = ${found} AND ${entryOf('e', 4)} = 0,
      (${entryOf('e', 1)}, arrayMap((v, j) -> if(j = 1, it.1, v), ${entryOf('e', 2)}, arrayEnumerate(${entryOf('e', 2)})), ${entryOf('e', 3)}, ${entryOf('e', 4)}), e),
    acc, arrayEnumerate(acc))`
  const first = `if(${found} = 0, ${entered}, ${reentered})`

  // A later step k: every attempt that entered step k - 1 within the window, and has not taken
  // this entry into step k already, goes on.
  const k = 'toUInt32(it.3)'
  const prev = `${entryOf('e', 2)}[${k} - 1]`
  const moves = `(${entryOf('e', 4)} = 0 AND ${prev} != 0 AND it.1 - ${prev} <= ${W} AND ${entryOf('e', 2)}[${k}] != ${prev})`
  const moved = `arrayMap((v, j) -> if(j = ${k}, ${prev}, v), ${entryOf('e', 2)}, arrayEnumerate(${entryOf('e', 2)}))`
  const later = `arrayMap(e -> if(${moves},
      (${entryOf('e', 1)}, ${moved}, toUInt8(greatest(${entryOf('e', 3)}, ${k})), toUInt8(${k} = ${n})), e), acc)`

  const clear = `arrayMap(e -> (${entryOf('e', 1)}, arrayMap((v, j) -> if(has(it.4, toInt8(j)), v, 0), ${entryOf('e', 2)}, arrayEnumerate(${entryOf('e', 2)})), ${entryOf('e', 3)}, ${entryOf('e', 4)}), acc)`
  const body = `CAST(multiIf(it.3 = 0, ${clear}, it.3 = 1, ${first}, ${later}), '${state}')`
  const fold = `arrayFold((acc, it) -> ${body}, ${items}, CAST([], '${state}'))`
  return `arrayFilter(r -> r.2 != 0, arrayMap(e -> (${entryOf('e', 1)}, toInt8(multiIf(${entryOf('e', 4)} = 1, 1, ${entryOf('e', 3)} >= ${fromStep + 1}, -1, 0))), ${fold}))`
}

interface PeriodRow {
  breakdown_value: string
  period: number | string
  reached_from: number | string
  reached_to: number | string
  rate: number | string
}

/**
 * PostHog's funnel trends rows from the counts per value and period: without a breakdown one row,
 * with one a row per value (the `breakdownLimit` values most persons entered, as PostHog ranks
 * them), each with every period, a period nobody entered at 0; `data` the conversion rates in
 * percent.
 */
export function funnelTrendsResult(options: {
  rows: PeriodRow[]
  days: string[]
  labels: string[]
  breakdown: boolean
  breakdownLimit: number
}): Array<Record<string, unknown>> {
  const { rows, days, labels } = options
  const byValue = new Map<string, { entered: number; rates: number[] }>()
  for (const row of rows) {
    const value = String(row.breakdown_value)
    const entry = byValue.get(value) ?? { entered: 0, rates: new Array<number>(days.length).fill(0) }
    const i = Number(row.period) - 1
    if (i >= 0 && i < days.length) entry.rates[i] = Number(row.rate)
    entry.entered += Number(row.reached_from)
    byValue.set(value, entry)
  }
  const rowOf = (rates: number[]) => ({ count: days.length, data: rates, days, labels })
  if (!options.breakdown) return [rowOf(byValue.get('')?.rates ?? new Array<number>(days.length).fill(0))]
  const kept = [...byValue.entries()]
    .sort(([a, x], [b, y]) => y.entered - x.entered || (a < b ? 1 : a > b ? -1 : 0))
    .slice(0, options.breakdownLimit)
  return kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([value, { rates }]) => ({ ...rowOf(rates), breakdown_value: [value] }))
}
