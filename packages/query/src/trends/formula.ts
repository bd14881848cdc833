import { problems } from '@burrow/contracts'

/** The longest formula a trend takes. */
const MAX_FORMULA_LENGTH = 400

/** A parsed formula: numbers, series letters (A is the first series), + - * / and parentheses. */
type Formula =
  | { kind: 'number'; value: number }
  | { kind: 'series'; index: number }
  | { kind: 'negate'; operand: Formula }
  | { kind: 'binary'; op: '+' | '-' | '*' | '/'; left: Formula; right: Formula }

/** The deepest nesting of parentheses and unary minus a formula may have. */
const MAX_DEPTH = 32

/**
 * Parses PostHog's trends formula over `seriesCount` series (letters A, B, C… by series order,
 * either case). Anything else is refused as a 400 naming `formula`.
 */
export function parseFormula(text: string, seriesCount: number): Formula {
  const refuse = (why: string) => problems.validation('query__trendsFilter__formula', `The formula ${JSON.stringify(text)} ${why}`)
  if (text.length > MAX_FORMULA_LENGTH) throw refuse(`is longer than ${MAX_FORMULA_LENGTH} characters.`)
  let at = 0
  const skipSpaces = () => {
    while (at < text.length && /\s/.test(text[at]!)) at++
  }
  const peek = () => {
    skipSpaces()
    return text[at]
  }

  const expression = (depth: number): Formula => {
    let left = term(depth)
    for (let op = peek(); op === '+' || op === '-'; op = peek()) {
      at++
      left = { kind: 'binary', op, left, right: term(depth) }
    }
    return left
  }
  const term = (depth: number): Formula => {
    let left = factor(depth)
    for (let op = peek(); op === '*' || op === '/'; op = peek()) {
      at++
      left = { kind: 'binary', op, left, right: factor(depth) }
    }
    return left
  }
  const factor = (depth: number): Formula => {
    if (depth > MAX_DEPTH) throw refuse('is nested too deeply.')
    const c = peek()
    if (c === undefined) throw refuse('ends where a value was expected.')
    if (c === '-' || c === '+') {
      at++
      const operand = factor(depth + 1)
      return c === '-' ? { kind: 'negate', operand } : operand
    }
    if (c === '(') {
      at++
      const inner = expression(depth + 1)
      if (peek() !== ')') throw refuse(`misses a ")" at ${at}.`)
      at++
      return inner
    }
    const number = /^(\d+(\.\d*)?|\.\d+)/.exec(text.slice(at))
    if (number) {
      at += number[0].length
      return { kind: 'number', value: Number(number[0]) }
    }
    if (/[A-Za-z]/.test(c)) {
      const index = c.toUpperCase().charCodeAt(0) - 'A'.charCodeAt(0)
      if (/[A-Za-z0-9_]/.test(text[at + 1] ?? '')) throw refuse(`names no series at ${at}: series are single letters.`)
      if (index >= seriesCount) throw refuse(`names series ${c.toUpperCase()}, but the query has ${seriesCount}.`)
      at++
      return { kind: 'series', index }
    }
    throw refuse(`has an unexpected "${c}" at ${at}.`)
  }

  const formula = expression(0)
  if (peek() !== undefined) throw refuse(`has an unexpected "${text[at]}" at ${at}.`)
  return formula
}

/** The formula's value for one bucket, given each series' value there; what is not a finite number is 0, as in PostHog. */
export function evaluateFormula(formula: Formula, values: readonly number[]): number {
  const value = evaluate(formula, values)
  return Number.isFinite(value) ? value : 0
}

function evaluate(f: Formula, values: readonly number[]): number {
  switch (f.kind) {
    case 'number':
      return f.value
    case 'series':
      return values[f.index] ?? 0
    case 'negate':
      return -evaluate(f.operand, values)
    case 'binary': {
      const left = evaluate(f.left, values)
      const right = evaluate(f.right, values)
      if (f.op === '+') return left + right
      if (f.op === '-') return left - right
      if (f.op === '*') return left * right
      return right === 0 ? 0 : left / right
    }
  }
}

/**
 * The rows of a trend with a formula, as PostHog answers them: one row per period (with compare)
 * and breakdown value, whose data is the formula over the series' data bucket by bucket (a series
 * without that breakdown value counts 0), labelled `label` (PostHog's `Formula (…)` unless the
 * formula is named) and tied to no series (`action` null).
 */
export function applyFormula(
  rows: ReadonlyArray<Record<string, unknown>>,
  formula: Formula,
  label: string,
  totalValue: boolean,
): Array<Record<string, unknown>> {
  const groups = new Map<string, Array<Record<string, unknown>>>()
  for (const row of rows) {
    const key = JSON.stringify([row.compare_label ?? null, row.breakdown_value ?? null])
    const group = groups.get(key)
    if (group) group.push(row)
    else groups.set(key, [row])
  }
  return [...groups.values()].map((group) => {
    const first = group[0]!
    const bySeries = new Map<number, Record<string, unknown>>()
    for (const row of group) bySeries.set((row.action as { order: number }).order, row)
    const seriesCount = Math.max(...bySeries.keys()) + 1
    const valuesAt = (read: (row: Record<string, unknown>) => number) =>
      Array.from({ length: seriesCount }, (_, i) => {
        const row = bySeries.get(i)
        return row ? read(row) : 0
      })
    const out: Record<string, unknown> = { ...first, label, action: null }
    if (totalValue) {
      out.aggregated_value = evaluateFormula(
        formula,
        valuesAt((row) => Number(row.aggregated_value ?? 0)),
      )
      // PostHog's formula over totals answers no data at all, where a plain total answers [].
      out.data = null
    } else {
      const width = (first.data as number[]).length
      const data = Array.from({ length: width }, (_, b) =>
        evaluateFormula(
          formula,
          valuesAt((row) => (row.data as number[])[b] ?? 0),
        ),
      )
      out.data = data
      out.count = data.reduce((a, b) => a + b, 0)
    }
    return out
  })
}
