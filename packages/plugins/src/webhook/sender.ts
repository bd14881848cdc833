import { pluginConfigs, pluginWebhookOutbox, type LeasedDelivery } from '@burrow/postgres'
import { request, type Agent } from 'undici'
import type { CoreDeps } from '@burrow/core'
import type { AppMetrics } from '../appMetrics'
import { logSystemEvent, type PluginLogBuffer } from '../logs'
import { pluginConfigsChanged } from '../projectPlugins'
import { isRetryableStatus, parseRetryAfter, retryDelayMs } from './retry'
import { checkLiteralHost, PrivateAddressError, webhookAgent } from './publicAddresses'
import { OutcomeWriter } from './outcomes'
import { webhookRequest, type WebhookEvent } from './request'

export interface WebhookSenderOptions {
  retryBaseMs: number
  timeoutMs: number
  /** Requests in flight at once per config. */
  concurrency: number
  /** A config whose oldest undelivered event has failed this long is disabled. */
  disableAfterS: number
  /** Whether a webhook may reach private and reserved addresses (localhost, the local network, cloud metadata). */
  allowPrivateAddresses: boolean
  /** How long the sender rests when nothing is due. */
  idleMs?: number
  onOutcome?: (outcome: 'delivered' | 'retry' | 'undeliverable') => void
}

type Attempt = { ok: true } | { ok: false; retry: boolean; error: string; retryAfterMs?: number | undefined }

/** Deliveries leased at a time, across configs. */
const LEASE_BATCH = 1000
/** Answers read at most this far: a webhook's answer is not kept. */
const MAX_RESPONSE_BYTES = 64 * 1024
/**
 * A leased delivery is sent within this long of its lease, or given back: what is left of the
 * lease then (the request timeout and LEASE_MARGIN_MS) covers the request and recording its outcome.
 */
const START_WINDOW_MS = 5_000
/** What a lease keeps past the request's timeout, for the outcome to be recorded. */
const LEASE_MARGIN_MS = 5_000
/**
 * Deliveries of a config leased ahead of its free requests: about this long of sending at its
 * recent pace, or twice what a lease takes when that is longer (a large backlog makes it slower).
 */
const LOOKAHEAD_MS = 500
/** Deliveries of a config leased ahead at most, and the first time (before its pace is known). */
const MAX_AHEAD = 2000
const FIRST_AHEAD = 16

interface Queued {
  delivery: LeasedDelivery
  /** Local time after which it is not sent, but given back. */
  startBy: number
  /** Local time its lease lasts until at least (counted from before it was asked for). */
  leaseEnds: number
}

/** What this server sends for one config: its leased deliveries waiting for a free request, in order. */
interface Lane {
  queue: Queued[]
  inFlight: number
  /** Recent request durations (a moving average), for how many to lease ahead; undefined at first. */
  requestMs: number | undefined
  /** The last lease asked more than there was due: lease again on a poke, a free request or the idle timer. */
  drained: boolean
}

/**
 * Sends the webhook outbox. Each server runs one; a delivery is leased in PostgreSQL before it is
 * sent (FOR UPDATE SKIP LOCKED), so one server sends it, and a server that dies mid-send frees it
 * when its lease runs out (the one case where an endpoint may see an event twice: make it
 * idempotent on the event's uuid).
 *
 * Each config has a lane: up to `concurrency` requests in flight, started in order from the
 * deliveries leased for it, and more leased before they run out (about LOOKAHEAD_MS of sending at
 * the endpoint's pace), so that a fast endpoint is never kept waiting on PostgreSQL. Outcomes are
 * recorded in batches, a few ms after the answer and always within the lease.
 */
export class WebhookSender {
  private running = false
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined
  /** New deliveries were queued (or the sender stops) since the last lease. */
  private poked = false
  private readonly agent: Agent
  private readonly lanes = new Map<number, Lane>()
  private readonly sending = new Set<Promise<void>>()
  private readonly outcomes: OutcomeWriter
  /** How long leases take (a moving average). */
  private leaseMs = 0

  constructor(
    private readonly deps: CoreDeps,
    private readonly appMetrics: AppMetrics,
    private readonly logs: PluginLogBuffer,
    private readonly options: WebhookSenderOptions,
  ) {
    this.agent = webhookAgent(options.allowPrivateAddresses)
    this.outcomes = new OutcomeWriter(deps)
  }

  start(): void {
    this.running = true
    this.loop = this.run()
  }

  /** Tells the sender new deliveries were queued, so that it looks at once. */
  poke(): void {
    for (const lane of this.lanes.values()) lane.drained = false
    this.signal()
  }

  async stop(): Promise<void> {
    this.running = false
    this.signal()
    await this.loop
    await this.agent.close().catch(() => {})
    await this.logs.flush(this.deps).catch(() => {})
  }

  private signal(): void {
    this.poked = true
    this.wake?.()
  }

  private async run(): Promise<void> {
    while (this.running) {
      let more = false
      let failed = false
      this.poked = false
      try {
        this.giveBackLate()
        more = await this.lease()
        await this.logs.flush(this.deps)
      } catch (err) {
        failed = true
        this.deps.log('webhook sender failed; trying again', err)
      }
      // Rests until something is due, a lane wants more, or new deliveries are queued.
      if (this.running && (failed || (!more && !this.poked && !this.anyLaneWants()))) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.options.idleMs ?? 250)
          this.wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        this.wake = undefined
        // The idle timer: retries may have come due, other servers' leases run out.
        for (const lane of this.lanes.values()) lane.drained = false
      }
    }
    // Stopping: what was leased but not sent goes back at once, what is in flight ends and is recorded.
    const unsent = [...this.lanes.values()].flatMap((lane) => lane.queue.splice(0))
    await this.giveBack(unsent)
    await Promise.all(this.sending)
    await this.outcomes.drain()
  }

  private anyLaneWants(): boolean {
    for (const lane of this.lanes.values()) if (this.wanted(lane) > 0) return true
    return false
  }

  /** How many of a lane's deliveries to hold beyond its free requests. */
  private ahead(lane: Lane): number {
    if (lane.requestMs === undefined) return FIRST_AHEAD
    const lookaheadMs = Math.min(Math.max(LOOKAHEAD_MS, 2 * this.leaseMs), START_WINDOW_MS / 2)
    return Math.min(MAX_AHEAD, Math.floor((this.options.concurrency * lookaheadMs) / Math.max(lane.requestMs, 0.1)))
  }

  /** How many more deliveries a lane wants leased now; 0 while it holds enough. */
  private wanted(lane: Lane): number {
    const free = this.options.concurrency - lane.inFlight
    const ahead = this.ahead(lane)
    if (lane.drained || lane.queue.length > free + ahead / 2) return 0
    return Math.max(0, free + ahead - lane.queue.length)
  }

  /** Leases for the lanes that want more and for configs with no lane; answers whether there may be more due now. */
  private async lease(): Promise<boolean> {
    const perConfig = new Map<number, number>()
    const skip: number[] = []
    for (const [configId, lane] of this.lanes) {
      const n = this.wanted(lane)
      if (n > 0) perConfig.set(configId, n)
      else skip.push(configId)
    }
    // Counted from before the lease is asked for: the lease in PostgreSQL ends no sooner.
    const leasedAt = Date.now()
    const due = await pluginWebhookOutbox.leaseDueDeliveries(this.deps.sql, {
      limit: LEASE_BATCH,
      // Past the request's timeout and the time to start it: a server that died mid-send frees its deliveries soon after.
      leaseSeconds: (this.options.timeoutMs + START_WINDOW_MS + LEASE_MARGIN_MS) / 1000,
      perConfig,
      othersPerConfig: this.options.concurrency + FIRST_AHEAD,
      skip,
    })
    this.leaseMs = this.leaseMs * 0.7 + (Date.now() - leasedAt) * 0.3
    const startBy = leasedAt + START_WINDOW_MS
    const leaseEnds = leasedAt + this.options.timeoutMs + START_WINDOW_MS + LEASE_MARGIN_MS
    const got = new Map<number, number>()
    for (const delivery of due) {
      const configId = delivery.plugin_config_id
      let lane = this.lanes.get(configId)
      if (!lane) this.lanes.set(configId, (lane = { queue: [], inFlight: 0, requestMs: undefined, drained: false }))
      lane.queue.push({ delivery, startBy, leaseEnds })
      got.set(configId, (got.get(configId) ?? 0) + 1)
    }
    for (const [configId, lane] of this.lanes) {
      const asked = perConfig.get(configId)
      if (asked !== undefined && (got.get(configId) ?? 0) < asked && due.length < LEASE_BATCH) lane.drained = true
      this.pump(configId, lane)
      if (lane.queue.length === 0 && lane.inFlight === 0 && !got.has(configId) && lane.drained) this.lanes.delete(configId)
    }
    return due.length >= LEASE_BATCH
  }

  /** Starts a lane's deliveries while it has free requests; a request's outcome is recorded after its request is done. */
  private pump(configId: number, lane: Lane): void {
    while (this.running && lane.inFlight < this.options.concurrency && lane.queue.length > 0) {
      const next = lane.queue.shift()!
      if (Date.now() > next.startBy) {
        // Too late to send within the lease: it and what follows it go back, in order.
        void this.giveBack([next, ...lane.queue.splice(0)])
        return
      }
      lane.inFlight++
      const started = performance.now()
      const sending: Promise<void> = this.attempt(next.delivery)
        .finally(() => {
          lane.inFlight--
          const ms = performance.now() - started
          lane.requestMs = lane.requestMs === undefined ? ms : lane.requestMs * 0.8 + ms * 0.2
          this.pump(configId, lane)
          if (this.wanted(lane) > 0) this.wake?.()
        })
        .then((attempt) => this.conclude(next, attempt))
        .catch((err: unknown) => this.deps.log('webhook delivery failed', err))
        .finally(() => this.sending.delete(sending))
      this.sending.add(sending)
    }
  }

  /** Gives back what waited too long for a free request (an endpoint slower than it was). */
  private giveBackLate(): void {
    const now = Date.now()
    for (const lane of this.lanes.values()) {
      if (lane.queue.length > 0 && now > lane.queue[0]!.startBy) void this.giveBack(lane.queue.splice(0))
    }
  }

  private async giveBack(queued: Queued[]): Promise<void> {
    const keys = queued
      .filter((q) => q.leaseEnds - Date.now() > LEASE_MARGIN_MS)
      .map((q) => ({ configId: q.delivery.plugin_config_id, eventUuid: q.delivery.event_uuid }))
    // Not given back, they are free again when their lease runs out.
    await pluginWebhookOutbox
      .releaseDeliveries(this.deps.sql, keys)
      .catch((err: unknown) => this.deps.log('could not give back webhook deliveries', err))
  }

  /** Records how an attempt ended, with its metrics and log entries. */
  private async conclude({ delivery, leaseEnds }: Queued, attempt: Attempt): Promise<void> {
    const configRef = { id: delivery.plugin_config_id, project_id: delivery.project_id, plugin_id: delivery.plugin_id }
    const key = { configId: delivery.plugin_config_id, eventUuid: delivery.event_uuid }
    if (attempt.ok) {
      await this.outcomes.record({ ...key, outcome: 'delivered' }, leaseEnds)
      this.appMetrics.record(delivery.plugin_config_id, 'webhook', delivery.attempts > 1 ? 'success_on_retry' : 'success')
      this.options.onOutcome?.('delivered')
      return
    }
    const message = `Delivery of event ${delivery.event_uuid} failed (attempt ${delivery.attempts}): ${attempt.error}`
    if (!attempt.retry) {
      await this.outcomes.record({ ...key, outcome: 'undeliverable', error: attempt.error }, leaseEnds)
      this.appMetrics.record(delivery.plugin_config_id, 'webhook', 'failure', attempt.error)
      this.logs.add(configRef, 'PLUGIN', 'ERROR', `${message}. Not retried: kept for a replay.`)
      this.options.onOutcome?.('undeliverable')
      return
    }
    const failingForS = (Date.now() - delivery.created_at.getTime()) / 1000
    if (failingForS > this.options.disableAfterS) {
      await this.disable(delivery, attempt.error, failingForS)
      return
    }
    const delay = retryDelayMs(delivery.attempts, this.options.retryBaseMs, attempt.retryAfterMs)
    await this.outcomes.record({ ...key, outcome: 'retry', delayMs: delay, error: attempt.error }, leaseEnds)
    this.logs.add(configRef, 'PLUGIN', 'WARN', `${message}. Retrying in ${Math.round(delay / 100) / 10} s.`)
    this.options.onOutcome?.('retry')
  }

  private async attempt(delivery: LeasedDelivery): Promise<Attempt> {
    let webhook
    try {
      webhook = webhookRequest(delivery.config, delivery.event as unknown as WebhookEvent)
    } catch (err) {
      return { ok: false, retry: false, error: `The config cannot make a request: ${err instanceof Error ? err.message : String(err)}` }
    }
    const { method, url } = webhook
    try {
      if (!this.options.allowPrivateAddresses) checkLiteralHost(url)
      // undici's request rather than fetch: a quarter of the CPU a request. It follows no redirect.
      const res = await request(url, {
        method,
        headers: requestHeaders(webhook.headers),
        body: webhook.body,
        signal: AbortSignal.timeout(this.options.timeoutMs),
        dispatcher: this.agent,
      })
      await res.body.dump({ limit: MAX_RESPONSE_BYTES }).catch(() => {
        // What the endpoint answered does not matter beyond its status.
      })
      if (res.statusCode >= 200 && res.statusCode < 300) return { ok: true }
      const retryAfter = res.headers['retry-after']
      return {
        ok: false,
        retry: isRetryableStatus(res.statusCode),
        error: `${method} ${url} answered ${res.statusCode} ${res.statusText}`.trim(),
        retryAfterMs: parseRetryAfter((Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null),
      }
    } catch (err) {
      // Not retried: the address will not change by itself. Kept for a replay once it is allowed or fixed.
      const refused =
        err instanceof PrivateAddressError ? err : err instanceof Error && err.cause instanceof PrivateAddressError ? err.cause : undefined
      if (refused) return { ok: false, retry: false, error: `${method} ${url} was not sent: ${refused.message}` }
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')
      const cause = err instanceof Error ? `: ${err.cause instanceof Error ? err.cause.message : err.message}` : ''
      return {
        ok: false,
        retry: true,
        error: timedOut
          ? `${method} ${url} did not answer within ${this.options.timeoutMs} ms`
          : `${method} ${url} could not be reached${cause}`,
      }
    }
  }

  private async disable(delivery: LeasedDelivery, error: string, failingForS: number): Promise<void> {
    const hours = Math.round((failingForS / 3600) * 10) / 10
    // The delivery stays pending: a replay after the endpoint is fixed sends it.
    await pluginWebhookOutbox.scheduleRetry(this.deps.sql, delivery.plugin_config_id, delivery.event_uuid, 0, error)
    // What this server leased of the config is not sent either.
    const lane = this.lanes.get(delivery.plugin_config_id)
    if (lane) await this.giveBack(lane.queue.splice(0))
    const row = await pluginConfigs.disablePluginConfig(this.deps.sql, delivery.plugin_config_id, {
      message: `Disabled after failing to deliver for ${hours} h: ${error}`,
      time: new Date().toISOString(),
    })
    if (!row) return
    this.appMetrics.record(delivery.plugin_config_id, 'webhook', 'failure', error)
    await logSystemEvent(
      this.deps,
      row,
      `Plugin disabled: deliveries have failed for ${hours} h (last error: ${error}). Undelivered events are kept; fix the endpoint, enable the config and run "npm run cli -- plugins replay --config ${row.id}".`,
      'ERROR',
    )
    await pluginConfigsChanged(this.deps)
  }
}

/** The config's headers over what fetch sent by default, one of each name whatever its case. */
export function requestHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { accept: '*/*', 'user-agent': 'undici' }
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value
  return out
}
