import { RE2JS } from 're2js'

/**
 * Patterns of the `regex` and `not_regex` operators, read as RE2 reads them: PostHog's flag
 * service (Rust's regex) and ClickHouse's match() do, and so matching takes time linear in the
 * value. JavaScript's backtracking RegExp would let one request's property value hold the event
 * loop for minutes against a pattern like `^(a+)+$`. RE2 has no lookaround or backreferences;
 * it reads inline flags such as `(?i)`, as PostHog's users write them.
 */
export function isValidPattern(pattern: string): boolean {
  return compile(pattern) !== null
}

/** Whether the pattern matches anywhere in the value; undefined when the pattern does not compile. */
export function matchesPattern(pattern: string, value: string): boolean | undefined {
  return compile(pattern)?.test(value)
}

/** Compiled patterns (null: does not compile), so that each compiles once. */
const compiled = new Map<string, RE2JS | null>()
const MAX_PATTERNS = 10_000

function compile(pattern: string): RE2JS | null {
  let regex = compiled.get(pattern)
  if (regex === undefined) {
    try {
      regex = RE2JS.compile(pattern)
    } catch {
      regex = null
    }
    if (compiled.size >= MAX_PATTERNS) compiled.clear()
    compiled.set(pattern, regex)
  }
  return regex
}
