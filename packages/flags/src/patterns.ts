import { Script, createContext, type Context } from 'node:vm'
import { RE2JS } from 're2js'

/**
 * Patterns of the `regex` and `not_regex` operators. PostHog's flag service reads them with
 * fancy-regex: RE2's syntax plus lookaround and backreferences, with a backtracking budget
 * (10,000 steps) past which a match fails.
 *
 * - Patterns RE2 reads (nearly all: ClickHouse's match() reads the same) run on RE2, in time
 *   linear in the value, so no property value can hold the event loop.
 * - The rest (lookaround, backreferences) need a backtracking engine, JavaScript's RegExp, which
 *   has no step budget and runs `^(a+)+(?=b)$` for minutes. They run in a vm context with a
 *   time budget instead: V8 interrupts the match when it runs out, and the condition then holds
 *   for neither operator, as when PostHog's budget runs out. Values are cut to a bounded length
 *   first so the common slow-but-finite case stays small. A budget in time rather than steps can
 *   also end a legitimate match on a starved machine; such patterns are rare, and the
 *   alternative (a worker per match, or no lookaround at all) costs every request or every user.
 */
export function isValidPattern(pattern: string): boolean {
  return compile(pattern) !== null
}

/** Whether the pattern matches anywhere in the value; undefined when it does not compile or ran out of time. */
export function matchesPattern(pattern: string, value: string): boolean | undefined {
  const compiled = compile(pattern)
  if (compiled === null) return undefined
  if (compiled instanceof RE2JS) return compiled.test(value)
  return backtracking(compiled, value)
}

/** Milliseconds a backtracking pattern may run on one value. */
const BACKTRACKING_BUDGET_MS = 50
/** Characters of a value a backtracking pattern sees. */
const BACKTRACKING_MAX_VALUE = 10_000

const sandbox: Context = createContext({ pattern: /(?:)/, value: '' })
const run = new Script('pattern.test(value)')

function backtracking(pattern: RegExp, value: string): boolean | undefined {
  sandbox.pattern = pattern
  sandbox.value = value.length > BACKTRACKING_MAX_VALUE ? value.slice(0, BACKTRACKING_MAX_VALUE) : value
  pattern.lastIndex = 0
  try {
    return run.runInContext(sandbox, { timeout: BACKTRACKING_BUDGET_MS }) === true
  } catch {
    return undefined
  } finally {
    sandbox.value = ''
  }
}

/** A leading `(?i)`-style group, which fancy-regex reads and JavaScript's RegExp does not. */
const INLINE_FLAGS = /^\(\?([ims]+)\)/

/** The pattern for JavaScript's engine, or null when it is not one fancy-regex would read either. */
function backtrackingPattern(pattern: string): RegExp | null {
  const inline = INLINE_FLAGS.exec(pattern)
  const flags = inline ? [...new Set(inline[1])].join('') : ''
  const source = inline ? pattern.slice(inline[0].length) : pattern
  try {
    return new RegExp(source, `${flags}u`)
  } catch {
    return null
  }
}

/** Compiled patterns (null: does not compile), so that each compiles once. */
const compiled = new Map<string, RE2JS | RegExp | null>()
const MAX_PATTERNS = 10_000

function compile(pattern: string): RE2JS | RegExp | null {
  let regex = compiled.get(pattern)
  if (regex === undefined) {
    try {
      regex = RE2JS.compile(pattern)
    } catch {
      regex = backtrackingPattern(pattern)
    }
    if (compiled.size >= MAX_PATTERNS) compiled.clear()
    compiled.set(pattern, regex)
  }
  return regex
}
