import { bind } from './attempts'

/**
 * Funnel trends (funnelVizType `trends`) as PostHog's funnel aggregation computes them: each
 * period a person entered counts once, as converted when the person went on to `funnelToStep`
 * within the window, as entered when it reached `funnelFromStep`.
 *
 * Ordered and strict funnels enter a period with a first-step event. The walk keeps, per period
 * entered, when the current attempt entered each step and which steps an exclusion struck; a
 * later first-step event in a period not yet converted starts that period's attempt again, and a
 * later step event moves every period's attempt on.
 *
 * Unordered funnels enter the period of the oldest event of an attempt, whatever its step: the
 * walk holds the events of the attempt, and as they leave (out of the window, or once every step
 * is held) the period of the one leaving is credited with the steps held.
 */

/** Fields of a period's entry in the ordered walk, in tuple order. */
const FIELDS = ['period', 'times', 'excluded', 'level', 'converted', 'levelTime', 'levelExcluded'] as const
type Field = (typeof FIELDS)[number]
const ENTRY = 'Tuple(UInt32, Array(Float64), Array(UInt8), UInt8, UInt8, Float64, UInt8)'

/** How the furthest step of a period's attempt stands against exclusions (PostHog's three states). */
const NOT_EXCLUDED = 0
const PARTIAL = 1
const FULL = 2

const field = (e: string, name: Field) => `tupleElement(${e}, ${FIELDS.indexOf(name) + 1})`

/** `e` with some fields replaced. */
function entryWith(e: string, changes: Partial<Record<Field, string>>): string {
  return `CAST((${FIELDS.map((name) => changes[name] ?? field(e, name)).join(', ')}), '${ENTRY}')`
}

/** `array` with its element `at` (1-based) set to `value`. */
const setAt = (array: string, at: string, value: string) =>
  `arrayMap((v, j) -> if(j = ${at}, ${value}, v), ${array}, arrayEnumerate(${array}))`

/**
 * An expression of `Array((period UInt32, success Int8))` for one person in an ordered or strict
 * funnel: 1 for each period whose attempt converted, -1 for one that reached `fromStep` (1-based)
 * without converting. `events` is `(seconds, steps, value, period)` tuples in time order, steps
 * numbered from 1 up to `toStep`, an exclusion guarding step i (0-based) as `-(i + 1)`.
 */
export function funnelTrendsWalkSql(options: {
  events: string
  toStep: number
  fromStep: number
  windowSeconds: string
  strict: boolean
}): string {
  const { events, toStep: n, fromStep, windowSeconds: W } = options
  // One item per step an event is tried against, from the last (exclusions first, as PostHog
  // lists them after the steps); in a strict funnel a reset item (step 0) after each event, which
  // clears the steps that event is not.
  const reset = options.strict ? ', [(x.1, x.4, toInt8(0), x.2)]' : ''
  const items = `arrayFlatten(arrayMap(x -> arrayConcat(arrayMap(s -> (x.1, x.4, s, x.2), arrayReverse(x.2))${reset}), ${events}))`
  const state = `Array(${ENTRY})`
  const open = (e: string) => `${field(e, 'converted')} = 0`

  // A first-step event: a new attempt in its period; or the period's attempt entered again (not
  // once it converted), from scratch when an exclusion struck it at its first step.
  const fresh = `CAST((it.2, arrayConcat([it.1], arrayResize(CAST([], 'Array(Float64)'), ${n - 1}, 0.)), arrayResize(CAST([], 'Array(UInt8)'), ${n}, 0), 1, 0, it.1, ${NOT_EXCLUDED}), '${ENTRY}')`
  const found = `arrayFirstIndex(e -> ${field('e', 'period')} = it.2, acc)`
  const again = entryWith('e', { times: setAt(field('e', 'times'), '1', 'it.1'), excluded: setAt(field('e', 'excluded'), '1', '0') })
  const restarted = `if(${field('e', 'level')} = 1 AND ${field('e', 'levelExcluded')} != ${NOT_EXCLUDED}, ${fresh}, ${again})`
  const reentered = `arrayMap((e, k) -> if(k = ${found} AND ${open('e')}, ${restarted}, e), acc, arrayEnumerate(acc))`
  const first = `if(${found} = 0, arrayPushBack(acc, ${fresh}), ${reentered})`

  // A later step k, or an exclusion guarding it: it concerns every open attempt that entered
  // step k - 1 within the window and has not taken this entry into step k already.
  const k = 'toUInt32(abs(it.3))'
  const prev = `${field('e', 'times')}[${k} - 1]`
  const prevExcluded = `${field('e', 'excluded')}[${k} - 1] = 1`
  const concerned = `(${open('e')} AND ${prev} != 0 AND it.1 - ${prev} <= ${W} AND ${field('e', 'times')}[${k}] != ${prev})`

  // An exclusion marks the step before; the attempt's furthest step, when it is that one and
  // still within the window, is partly excluded.
  const struck = entryWith('e', {
    excluded: setAt(field('e', 'excluded'), `${k} - 1`, '1'),
    levelExcluded: `if(${field('e', 'level')} = ${k} - 1 AND it.1 - ${field('e', 'levelTime')} <= ${W}, ${PARTIAL}, ${field('e', 'levelExcluded')})`,
  })
  const exclude = `arrayMap(e -> if(${concerned} AND NOT ${prevExcluded}, ${struck}, e), acc)`

  // A step event moves the attempt on unless the step before is excluded; it converts on reaching
  // the last step, and otherwise is the furthest step when beyond it (or level with a partly
  // excluded one), fully excluded when the step before is.
  const times = `if(${prevExcluded}, ${field('e', 'times')}, ${setAt(field('e', 'times'), k, prev)})`
  const excluded = `if(${prevExcluded}, ${field('e', 'excluded')}, ${setAt(field('e', 'excluded'), k, '0')})`
  const further = `(${k} > ${field('e', 'level')} OR (${k} = ${field('e', 'level')} AND ${field('e', 'levelExcluded')} = ${PARTIAL}))`
  const moved = entryWith('e', {
    times: 'ts',
    excluded,
    converted: `toUInt8(ts[${n}] != 0)`,
    level: `if(ts[${n}] = 0 AND ${further}, toUInt8(${k}), ${field('e', 'level')})`,
    levelTime: `if(ts[${n}] = 0 AND ${further}, it.1, ${field('e', 'levelTime')})`,
    levelExcluded: `if(ts[${n}] = 0 AND ${further}, if(${prevExcluded}, ${FULL}, ${NOT_EXCLUDED}), ${field('e', 'levelExcluded')})`,
  })
  const later = `arrayMap(e -> if(${concerned}, arrayMap(ts -> ${moved}, [${times}])[1], e), acc)`

  const kept = (name: Field, zero: string) =>
    `arrayMap((v, j) -> if(has(it.4, toInt8(j)), v, ${zero}), ${field('e', name)}, arrayEnumerate(${field('e', name)}))`
  const clear = `arrayMap(e -> ${entryWith('e', { times: kept('times', '0'), excluded: kept('excluded', '0') })}, acc)`
  const body = `CAST(multiIf(it.3 = 0, ${clear}, it.3 = 1, ${first}, it.3 < 0, ${exclude}, ${later}), '${state}')`
  const fold = `arrayFold((acc, it) -> ${body}, ${items}, CAST([], '${state}'))`

  // A period not converted counts as entered when it reached fromStep and its furthest step is
  // not partly excluded; none does when any of them is fully excluded.
  const success = `toInt8(multiIf(
      ${field('e', 'converted')} = 1, 1,
      any_full, 0,
      ${field('e', 'level')} >= ${fromStep + 1} AND ${field('e', 'levelExcluded')} != ${PARTIAL}, -1,
      0))`
  const anyFull = `arrayExists(e -> ${open('e')} AND ${field('e', 'levelExcluded')} = ${FULL}, f)`
  const results = `arrayMap(any_full -> arrayMap(e -> (${field('e', 'period')}, ${success}), f), [${anyFull}])[1]`
  return `arrayFilter(r -> r.2 != 0, arrayMap(f -> ${results}, [${fold}])[1])`
}

const HELD = 'Array(Tuple(Float64, UInt8, UInt32))'
const RECORDS = 'Array(Tuple(UInt32, UInt8))'

/**
 * For held events `(seconds, step, period)` in the order they leave (oldest first, the lower step
 * first at one instant), how many steps are held when each leaves: those held by it or after it.
 */
function stepsHeldSql(held: string, n: number): string {
  const lastAt = `arrayMap(s -> arrayLastIndex(y -> y.2 = s, ${held}), range(1, ${n + 1}))`
  return bind('last_at', lastAt, `arrayMap(j -> toUInt8(arrayCount(i -> i >= j, last_at)), arrayEnumerate(${held}))`)
}

/** Each held event's period credited with the steps held when it leaves. */
const creditsSql = (held: string, counts: string) => `arrayMap((y, c) -> (y.3, c), ${held}, ${counts})`

/**
 * An expression of `Array((period UInt32, success Int8))` for one person in an unordered funnel,
 * as `funnelTrendsWalkSql` answers it. `events` is `(seconds, steps, value, period)` tuples in time
 * order, every step numbered (an attempt is complete only with all of them), exclusions negative.
 * With `attributedStep`, an event offered when the attempt holds that many steps is passed over
 * unless it has the `breakdown_value` being walked.
 *
 * Events leave oldest first, and the oldest out of the window or a complete attempt makes each
 * one before it leave too, so at each event the leaving ones are the longest run from the oldest
 * that is complete or out of the window. An exclusion drops whatever is still held, uncredited.
 */
export function unorderedTrendsWalkSql(options: {
  events: string
  steps: number
  toStep: number
  fromStep: number
  windowSeconds: string
  attributedStep?: number
}): string {
  const { events, steps: n, toStep, fromStep, windowSeconds: W } = options
  const state = `Tuple(${HELD}, ${RECORDS})`
  const staying = `arrayFirstIndex((y, c) -> c < ${n} AND y.1 + ${W} >= x.1, acc.1, counts)`
  const leaving = `if(${staying} = 0, length(acc.1), toUInt64(${staying} - 1))`

  // The event goes to the step it matches whose newest held event is oldest (none held: 0).
  const steps = 'arrayFilter(s -> s > 0, x.2)'
  const newest = `arrayMap(s -> arrayLast(y -> y.2 = s, kept).1, ${steps})`
  const chosen = bind('ends', newest, `${steps}[arrayFirstIndex(e -> e = arrayMin(ends), ends)]`)
  const pushed = `arraySort(y -> (y.1, y.2), arrayPushBack(kept, (x.1, toUInt8(${chosen}), x.4)))`
  const passedOver =
    options.attributedStep === undefined
      ? '0'
      : `(length(arrayDistinct(arrayMap(y -> y.2, kept))) = ${options.attributedStep} AND x.3 != breakdown_value)`
  const held = `multiIf(arrayAll(s -> s < 0, x.2), CAST([], '${HELD}'), ${passedOver}, kept, ${pushed})`

  const step = bind(
    'counts',
    stepsHeldSql('acc.1', n),
    bind(
      'kept',
      `arraySlice(acc.1, ${leaving} + 1)`,
      `(${held}, arrayConcat(acc.2, arraySlice(${creditsSql('acc.1', 'counts')}, 1, ${leaving})))`,
    ),
  )
  const fold = `arrayFold((acc, x) -> CAST(${step}, '${state}'), ${events}, CAST(([], []), '${state}'))`

  // After the last event every held event leaves; a period counts with the most steps credited.
  const credits = `arrayConcat(f.2, ${creditsSql('f.1', stepsHeldSql('f.1', n))})`
  const level = `arrayMax(arrayMap(r -> r.2, arrayFilter(r -> r.1 = p, credits)))`
  const success = `toInt8(if(${level} >= ${fromStep + 1}, if(${level} >= ${toStep}, 1, -1), 0))`
  const periods = bind('credits', credits, `arrayMap(p -> (p, ${success}), arrayDistinct(arrayMap(r -> r.1, credits)))`)
  return `arrayFilter(r -> r.2 != 0, ${bind('f', fold, periods)})`
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
