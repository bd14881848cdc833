import { describe, expect, it } from 'vitest'
import { Registry } from 'prom-client'
import { DependencyUnavailable, waitForDependency, watchDependencies } from './dependencies'
import { createLogger } from './logger'

function capturedLogger() {
  const lines: Array<Record<string, unknown>> = []
  const logger = createLogger(
    { LOG_LEVEL: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  )
  return { lines, logger }
}

describe('waiting for a dependency at start', () => {
  it('retries until it answers, logging each failure with the dependency and where it is', async () => {
    const { lines, logger } = capturedLogger()
    let tries = 0
    const result = await waitForDependency(
      'clickhouse',
      'ch:8123',
      async () => {
        if (++tries < 3) throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:8123'), { code: 'ECONNREFUSED' })
        return 'connected'
      },
      { waitMs: 5_000, logger, firstDelayMs: 10 },
    )
    expect(result).toBe('connected')
    expect(lines.map((l) => l.msg)).toEqual([
      'clickhouse at ch:8123 is not answering, retrying in 10 ms',
      'clickhouse at ch:8123 is not answering, retrying in 20 ms',
      'clickhouse at ch:8123 answered',
    ])
    expect(lines[0]).toMatchObject({ dependency: 'clickhouse', target: 'ch:8123', attempt: 1, err: 'connect ECONNREFUSED 10.0.0.7:8123' })
  })

  it('gives up at once on a refused password: waiting does not cure it', async () => {
    const { lines, logger } = capturedLogger()
    let tries = 0
    const refused = Object.assign(new Error('password authentication failed for user "burrow"'), { code: '28P01' })
    const failure = await waitForDependency(
      'postgres',
      'db:5432/burrow',
      () => {
        tries++
        return Promise.reject(refused)
      },
      { waitMs: 60_000, logger, firstDelayMs: 10 },
    ).catch((err: unknown) => err)
    expect(failure).toBeInstanceOf(DependencyUnavailable)
    expect(tries).toBe(1)
    expect(lines).toEqual([])
    expect((failure as Error).message).toBe(
      'postgres at db:5432/burrow refused the connection: 28P01: password authentication failed for user "burrow"',
    )
  })
})

describe('the dependencies watched in the background', () => {
  it('reports one that hangs as failing once its check passes the deadline, and reads its state at once meanwhile', async () => {
    let hang = false
    const watch = watchDependencies(
      [
        {
          name: 'clickhouse',
          probe: (signal) =>
            hang ? new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))) : undefined,
        },
      ],
      { registry: new Registry(), intervalMs: 20, timeoutMs: 60 },
    )
    await watch.start()
    try {
      const [check] = watch.checks
      expect(check!.check()).toMatchObject({ ok: true })
      hang = true
      const started = performance.now()
      let outcome = check!.check()
      while (outcome.ok && performance.now() - started < 2_000) {
        await new Promise((resolve) => setTimeout(resolve, 5))
        outcome = check!.check()
      }
      expect(outcome).toEqual({ ok: false, error: 'no answer within 60 ms' })
      // The probe read state: it took no time of its own, whatever the dependency does.
      const read = performance.now()
      check!.check()
      expect(performance.now() - read).toBeLessThan(5)
    } finally {
      watch.stop()
    }
  })
})
