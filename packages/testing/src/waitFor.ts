/** What a check answers while the awaited state has not come yet. */
type Pending = undefined | false

export interface WaitForOptions {
  /** What is awaited, as the message on timeout names it: "3 stored events", "the cohort calculated". */
  what?: string
  /** How long to keep checking, counted from the first check; a check still running then is given up on. */
  timeoutMs?: number
  /** The pause between the end of one check and the start of the next. */
  intervalMs?: number
}

// Taken before any test can fake them: waiting on a server, a worker or the disk takes real
// time even in a test that has faked the clock for the code it tests.
const realSetTimeout = globalThis.setTimeout
const realClearTimeout = globalThis.clearTimeout
const now = performance.now.bind(performance)

type Outcome<T> = { kind: 'value'; value: T } | { kind: 'error'; error: unknown } | { kind: 'late' }

/** The outcome of `check`, or `late` if it has not settled by `deadline`. */
function settleBefore<T>(check: () => T | Promise<T>, deadline: number): Promise<Outcome<T>> {
  return new Promise((resolve) => {
    const timer = realSetTimeout(() => resolve({ kind: 'late' }), Math.max(0, deadline - now()))
    void Promise.resolve()
      .then(check)
      .then(
        (value) => resolve({ kind: 'value', value }),
        (error: unknown) => resolve({ kind: 'error', error }),
      )
      .finally(() => realClearTimeout(timer))
  })
}

/**
 * Runs `check` until it answers something other than undefined or false, and returns that.
 * A check that throws (an `expect` that does not hold yet) counts as not yet. After `timeoutMs`
 * it fails with a message naming `what` was awaited and why the last check did not answer,
 * the last error as its cause.
 */
export async function waitFor<T>(
  check: () => T | Pending | Promise<T | Pending>,
  { what = 'the condition', timeoutMs = 10_000, intervalMs = 50 }: WaitForOptions = {},
): Promise<Exclude<T, Pending>> {
  const deadline = now() + timeoutMs
  let checks = 0
  // The last check that settled: when the final one is still running at the deadline, this is
  // what tells why the awaited state had not come.
  let settled: Outcome<T | Pending> | undefined
  for (;;) {
    checks++
    const outcome = await settleBefore(check, deadline)
    if (outcome.kind === 'value' && outcome.value !== undefined && outcome.value !== false) return outcome.value as Exclude<T, Pending>
    if (outcome.kind !== 'late') settled = outcome
    const remaining = deadline - now()
    if (outcome.kind === 'late' || remaining <= 0) {
      const describe = (o: Outcome<T | Pending> | undefined, which: string) =>
        o === undefined || o.kind === 'late'
          ? undefined
          : o.kind === 'error'
            ? `${which} failed: ${String(o.error)}`
            : `${which} answered ${String(o.value)}`
      const last =
        outcome.kind === 'late'
          ? ['the last check was still running', describe(settled, 'the one before')].filter(Boolean).join('; ')
          : describe(outcome, 'the last check')
      const cause = settled?.kind === 'error' ? settled.error : undefined
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what} (${checks} ${checks === 1 ? 'check' : 'checks'}; ${last})`, {
        cause,
      })
    }
    await new Promise((resolve) => realSetTimeout(resolve, Math.min(intervalMs, remaining)))
  }
}
