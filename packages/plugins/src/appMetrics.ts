import { pluginAppMetrics, type Pool } from '@burrow/postgres'

export type AppMetricCategory = 'processEvent' | 'onEvent' | 'webhook' | 'scheduledTask'

interface Counts {
  successes: number
  successesOnRetry: number
  failures: number
  lastError: string | undefined
}

/** Error text kept per metric, as PostHog cuts it. */
const MAX_ERROR_CHARS = 1000

/**
 * App metrics of plugin configs, counted in memory per (config, category) and added to
 * PostgreSQL in aggregate (every `flushMs`, or sooner past `maxKeys`), as PostHog's plugin
 * server does: a plugin running on every event costs no write per event.
 */
export class AppMetrics {
  private counts = new Map<string, Counts & { configId: number; category: AppMetricCategory }>()
  private timer: NodeJS.Timeout | undefined
  private flushing: Promise<void> | undefined

  constructor(
    private readonly sql: Pool,
    private readonly options: { flushMs: number; maxKeys?: number; log: (msg: string, err?: unknown) => void },
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.options.flushMs)
    this.timer.unref()
  }

  record(configId: number, category: AppMetricCategory, outcome: 'success' | 'success_on_retry' | 'failure', error?: string): void {
    const counts = this.countsOf(configId, category)
    if (outcome === 'success') counts.successes++
    else if (outcome === 'success_on_retry') counts.successesOnRetry++
    else {
      counts.failures++
      if (error !== undefined) counts.lastError = error.slice(0, MAX_ERROR_CHARS)
    }
    this.flushWhenFull()
  }

  /** Adds `successes` at once: a stage that runs a config on every event counts them per batch. */
  recordSuccesses(configId: number, category: AppMetricCategory, successes: number): void {
    this.countsOf(configId, category).successes += successes
    this.flushWhenFull()
  }

  private countsOf(configId: number, category: AppMetricCategory): Counts {
    const key = `${configId}:${category}`
    let counts = this.counts.get(key)
    if (!counts)
      this.counts.set(key, (counts = { configId, category, successes: 0, successesOnRetry: 0, failures: 0, lastError: undefined }))
    return counts
  }

  private flushWhenFull(): void {
    if (this.counts.size >= (this.options.maxKeys ?? 1000)) void this.flush()
  }

  /** Adds what was counted; on failure the counts are kept for the next flush. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = undefined
    })
    return this.flushing
  }

  private async write(): Promise<void> {
    if (this.counts.size === 0) return
    const taken = this.counts
    this.counts = new Map()
    try {
      await pluginAppMetrics.addAppMetrics(
        this.sql,
        [...taken.values()].map((c) => ({
          pluginConfigId: c.configId,
          category: c.category,
          successes: c.successes,
          successesOnRetry: c.successesOnRetry,
          failures: c.failures,
          lastError: c.lastError,
        })),
      )
    } catch (err) {
      this.options.log('could not write plugin app metrics; kept for the next flush', err)
      for (const [key, c] of taken) {
        const now = this.counts.get(key)
        if (!now) this.counts.set(key, c)
        else {
          now.successes += c.successes
          now.successesOnRetry += c.successesOnRetry
          now.failures += c.failures
          now.lastError ??= c.lastError
        }
      }
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await this.flush()
  }
}
