import { afterEach, describe, expect, it, vi } from 'vitest'
import { waitFor } from './waitFor'

/** Whatever waitFor rejects with. */
async function failureOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (err) {
    return err as Error
  }
  throw new Error('waitFor did not fail')
}

describe('waitFor', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('returns the first answer that is neither undefined nor false', async () => {
    const answers = [undefined, false, 0, 1]
    expect(await waitFor(() => answers.shift(), { intervalMs: 1 })).toBe(0)
    const flags = [false, false, true]
    const done: true = await waitFor(() => flags.shift() === true, { intervalMs: 1 })
    expect(done).toBe(true)
  })

  it('awaits asynchronous checks, and takes null and empty values as answers', async () => {
    expect(await waitFor(() => Promise.resolve(null))).toBeNull()
    expect(await waitFor(() => Promise.resolve(''))).toBe('')
  })

  it('keeps checking through errors, such as an expect that does not hold yet', async () => {
    let calls = 0
    const value = await waitFor(
      () => {
        calls++
        expect(calls).toBeGreaterThan(2)
        return calls
      },
      { intervalMs: 1 },
    )
    expect(value).toBe(3)
  })

  it('fails at the deadline naming what was awaited and what the last check answered', async () => {
    const error = await failureOf(waitFor(() => undefined, { what: '3 stored events', timeoutMs: 60, intervalMs: 10 }))
    expect(error.message).toMatch(/^Timed out after 60 ms waiting for 3 stored events \(\d+ checks; the last check answered undefined\)$/)
  })

  it('names the error of the last check and keeps it as the cause', async () => {
    const cause = new Error('connect ECONNREFUSED 127.0.0.1:5432')
    const error = await failureOf(
      waitFor(
        () => {
          throw cause
        },
        { what: 'the database', timeoutMs: 30, intervalMs: 10 },
      ),
    )
    expect(error.message).toContain('waiting for the database')
    expect(error.message).toContain('the last check failed: Error: connect ECONNREFUSED 127.0.0.1:5432')
    expect(error.cause).toBe(cause)
  })

  it('gives up on a check that never settles once the deadline passes', async () => {
    const started = performance.now()
    const error = await failureOf(waitFor(() => new Promise<never>(() => {}), { what: 'a hung request', timeoutMs: 50 }))
    expect(error.message).toBe('Timed out after 50 ms waiting for a hung request (1 check; the last check was still running)')
    expect(performance.now() - started).toBeLessThan(1000)
  })

  it('names why the check before failed when the last one is still running at the deadline', async () => {
    let calls = 0
    const cause = new Error('2 of 3 events listed')
    const error = await failureOf(
      waitFor(
        () => {
          calls++
          if (calls === 1) throw cause
          return new Promise<never>(() => {})
        },
        { what: 'the events', timeoutMs: 60, intervalMs: 5 },
      ),
    )
    expect(error.message).toBe(
      'Timed out after 60 ms waiting for the events (2 checks; the last check was still running; the one before failed: Error: 2 of 3 events listed)',
    )
    expect(error.cause).toBe(cause)
  })

  it('pauses intervalMs between checks', async () => {
    const starts: number[] = []
    await waitFor(
      () => {
        starts.push(performance.now())
        return starts.length === 3 || undefined
      },
      { intervalMs: 40 },
    )
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(38)
  })

  it('calls an unnamed wait "the condition"', async () => {
    const error = await failureOf(waitFor(() => false, { timeoutMs: 1 }))
    expect(error.message).toMatch(/^Timed out after 1 ms waiting for the condition \(/)
  })

  it('keeps its own time while the test fakes the timers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'Date', 'performance'] })
    let calls = 0
    expect(await waitFor(() => ++calls === 3, { intervalMs: 5, timeoutMs: 1000 })).toBe(true)
  })
})
