/**
 * A person's funnel attempts as PostHog's funnel aggregation walks them, written as ClickHouse
 * array folds over the person's events in time order. Each builder takes an array of
 * `(seconds Float64, steps Array(Int8), …)` tuples, sorted by time, where a step is numbered from 1
 * and an exclusion guarding step i (0-based) is `-(i + 1)`, and gives an expression of
 * `(level UInt8, excluded UInt8, times Array(Float64))`: how many steps the counted attempt
 * reached, whether it is excluded (the person is then not counted at all), and when it reached
 * each of them.
 */

const CHAIN = 'Tuple(Float64, UInt8, Array(Float64), Array(UInt32))'
const EMPTY_CHAIN = `CAST((0, 0, [], []), '${CHAIN}')`
const RESULT = 'Tuple(UInt8, UInt8, Array(Float64))'

const at = (tuple: string, i: number) => `tupleElement(${tuple}, ${i})`

/** `body` with `name` bound to the value of `value`: ClickHouse has no let inside a lambda. */
export const bind = (name: string, value: string, body: string) => `arrayMap(${name} -> ${body}, [${value}])[1]`

/**
 * PostHog drops an event between two events of the same steps (and breakdown value) before it
 * walks the funnel, so that long runs of one event cost less. It changes which events an attempt
 * can use, so it is part of the answer: applied here the same way, over
 * `(seconds, steps, breakdown value)` tuples ('' without a breakdown).
 */
export function thinnedEventsSql(raw: string): string {
  return `arrayFilter((x, b, a) -> NOT (length(x.2) <= 1 AND x.2 = b.2 AND x.2 = a.2 AND x.3 = b.3 AND x.3 = a.3 AND x.1 > b.1 AND x.1 < a.1),
    ${raw}, arrayRotateRight(${raw}, 1), arrayRotateLeft(${raw}, 1))`
}

/**
 * Ordered and strict funnels. The walk keeps, for each step, the latest attempt that reached it;
 * the counted attempt is the first to reach the furthest step, unless it is excluded, in which
 * case a later clean attempt reaching as far replaces it.
 *
 * Events at the same instant that match different steps are tried in step order and may not serve
 * one attempt twice; among them, exclusions and strictness do not apply (PostHog's rule for
 * simultaneous events). Otherwise each event is tried against its steps from the last, and in a
 * strict funnel every attempt whose step the event does not match is then dropped.
 */
export function orderedAttemptSql(options: { events: string; steps: number; windowSeconds: string; strict: boolean }): string {
  const { events, steps: n, windowSeconds: W } = options
  // Items (seconds, step, simultaneous, event id, event's steps), one per step an event is tried
  // against; step 0 is the strict reset after an event.
  const reset = options.strict ? ', [(x.1, toInt8(0), toUInt8(0), x.3, x.2)]' : ''
  const single = `arrayFlatten(arrayMap(x -> arrayConcat(arrayMap(s -> (x.1, s, toUInt8(0), x.3, x.2), arrayReverse(x.2))${reset}), g))`
  const simultaneous = `arraySort(y -> (y.2, y.4), arrayFlatten(arrayMap(x -> arrayMap(s -> (x.1, s, toUInt8(1), x.3, x.2), arrayFilter(s -> s > 0, x.2)), g)))`
  const numbered = `arrayMap((x, i) -> (x.1, x.2, toUInt32(i)), ${events}, arrayEnumerate(${events}))`
  const instants = `arraySplit((x, f) -> f, ev, arrayMap((x, p, i) -> i > 1 AND x.1 != p.1, ev, arrayRotateRight(ev, 1), arrayEnumerate(ev)))`
  const items = bind(
    'ev',
    numbered,
    `arrayFlatten(arrayMap(g -> if(arrayAll(x -> x.2 = g[1].2, g), ${single}, ${simultaneous}), ${instants}))`,
  )

  const state = `Tuple(Array(${CHAIN}), UInt8, ${CHAIN})`
  const step = 'toUInt32(abs(it.2))'
  const previous = `if(${step} = 1, CAST((it.1, 0, [], []), '${CHAIN}'), acc.1[${step} - 1])`
  const live = `(${at('p', 1)} != 0 AND it.1 - ${at('p', 1)} <= ${W} AND NOT (${at('acc.1[' + step + ']', 1)} = ${at('p', 1)} AND ${at('acc.1[' + step + ']', 1)} != 0))`
  const exclude = `if(${live} AND ${at('p', 2)} = 0,
      (arrayMap((c, k) -> if(k = ${step} - 1, (${at('c', 1)}, toUInt8(1), ${at('c', 3)}, ${at('c', 4)}), c), acc.1, arrayEnumerate(acc.1)),
       acc.2,
       if(acc.2 = ${step} - 1 AND it.1 - ${at('acc.3', 1)} <= ${W}, (${at('acc.3', 1)}, toUInt8(1), ${at('acc.3', 3)}, ${at('acc.3', 4)}), acc.3)),
      acc)`
  const extended = `(${at('p', 1)}, ${at('p', 2)}, arrayPushBack(${at('p', 3)}, it.1), arrayPushBack(${at('p', 4)}, it.4))`
  const furthest = `(${step} > acc.2 OR (${step} = acc.2 AND ${at('acc.3', 2)} = 1))`
  const advance = `if(${live} AND NOT (it.3 = 1 AND has(${at('p', 4)}, it.4)), ${bind(
    'nw',
    extended,
    `(if(${at('p', 2)} = 1, acc.1, arrayMap((c, k) -> if(k = ${step}, nw, c), acc.1, arrayEnumerate(acc.1))),
        if(${furthest}, toUInt8(${step}), acc.2),
        if(${furthest}, nw, acc.3))`,
  )}, acc)`
  const clear = `(arrayMap((c, k) -> if(has(it.5, toInt8(k)), c, ${EMPTY_CHAIN}), acc.1, arrayEnumerate(acc.1)), acc.2, acc.3)`
  const body = `CAST(multiIf(it.2 = 0, ${clear}, ${bind('p', previous, `if(it.2 < 0, ${exclude}, ${advance})`)}), '${state}')`
  const initial = `CAST(([${Array.from({ length: n }, () => '(0, 0, [], [])').join(', ')}], 0, (0, 0, [], [])), '${state}')`
  const fold = `arrayFold((acc, it) -> ${body}, ${items}, ${initial})`
  return bind('f', fold, `CAST((f.2, ${at('f.3', 2)}, ${at('f.3', 3)}), '${RESULT}')`)
}

/**
 * Unordered funnels. The walk keeps, per step, the events within the window of the latest event;
 * an event goes to the step it matches whose newest event is oldest. Before events leave (out of
 * the window, or once every step is held), the number of steps held is recorded, with the first
 * event of each as the times; an exclusion empties everything without recording. The walk stops
 * once every step was recorded, and records once more after the last event. With
 * `attributedStep`, events are `(seconds, steps, value)` walked for `breakdown_value`.
 */
export function unorderedAttemptSql(options: { events: string; steps: number; windowSeconds: string; attributedStep?: number }): string {
  const { events, steps: n, windowSeconds: W } = options
  const state = 'Tuple(Array(Array(Float64)), UInt8, Array(Float64), UInt8)'
  const held = (s: string) => `arrayCount(d -> notEmpty(d), ${s})`
  const firsts = (s: string) => `arraySort(arrayMap(d -> d[1], arrayFilter(d -> notEmpty(d), ${s})))`
  const leaving = `(${held('s0')} > 0 AND (${held('s0')} >= ${n} OR arrayMin(${firsts('s0')}) + ${W} < x.1))`
  const better = `(${leaving} AND ${held('s0')} > acc.2)`
  // PostHog also lets the oldest events go while every step is held, but by then every step was
  // recorded and the walk is over, so only the events out of the window need to go.
  const inWindow = `arrayMap(d -> arrayFilter(y -> y + ${W} >= x.1, d), s0)`
  const empty = `[${Array.from({ length: n }, () => "CAST([], 'Array(Float64)')").join(', ')}]`
  const newest = `arrayMap(d -> if(empty(d), 0, d[-1]), s2)`
  const chosen = bind(
    'ends',
    newest,
    `arrayFirst(k -> ends[k] = arrayMin(arrayMap(k2 -> ends[k2], arrayFilter(s -> s > 0, x.2))), arrayFilter(s -> s > 0, x.2))`,
  )
  // Breakdown attribution to a step: while the attempt holds that many steps, only an event with
  // the value being walked can join it.
  const passedOver = options.attributedStep === undefined ? '0' : `(${held('s2')} = ${options.attributedStep} AND x.3 != breakdown_value)`
  const pushed = bind(
    's2',
    inWindow,
    `multiIf(arrayAll(s -> s < 0, x.2), ${empty}, ${passedOver}, s2, arrayMap((d, k) -> if(k = ${chosen}, arrayPushBack(d, x.1), d), s2, arrayEnumerate(s2)))`,
  )
  const step = bind(
    's0',
    'acc.1',
    bind(
      'lv',
      `if(${better}, toUInt8(${held('s0')}), acc.2)`,
      `(${pushed}, lv, if(${better}, ${firsts('s0')}, acc.3), toUInt8(lv = ${n}))`,
    ),
  )
  const body = `CAST(if(acc.4 = 1, acc, ${step}), '${state}')`
  const initial = `CAST((${empty}, 0, [], 0), '${state}')`
  const fold = `arrayFold((acc, x) -> ${body}, ${events}, ${initial})`
  const last = `if(f.4 = 0 AND ${held('f.1')} > f.2, (toUInt8(${held('f.1')}), toUInt8(0), ${firsts('f.1')}), (f.2, toUInt8(0), f.3))`
  return bind('f', fold, `CAST(${last}, '${RESULT}')`)
}
