import { pluginConfigs, pluginWebhookOutbox, type LeasedDelivery } from '@burrow/postgres'
import { fetch, type Agent, type Response } from 'undici'
import type { CoreDeps } from '../../deps'
import type { AppMetrics } from '../appMetrics'
import { logSystemEvent, type PluginLogBuffer } from '../logs'
import { pluginConfigsChanged } from '../projectPlugins'
import { isRetryableStatus, parseRetryAfter, retryDelayMs } from './retry'
import { checkLiteralHost, PrivateAddressError, webhookAgent } from './publicAddresses'
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
const LEASE_BATCH = 200
/** Answers read at most this far: a webhook's answer is not kept. */
const MAX_RESPONSE_BYTES = 64 * 1024

/**
 * Sends the webhook outbox. Each server runs one; a delivery is leased in PostgreSQL before it is
 * sent (FOR UPDATE SKIP LOCKED), so one server sends it, and a server that dies mid-send frees it
 * when its lease runs out (the one case where an endpoint may see an event twice: make it
 * idempotent on the event's uuid).
 */
export class WebhookSender {
  private running = false
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined
  private readonly agent: Agent

  constructor(
    private readonly deps: CoreDeps,
    private readonly appMetrics: AppMetrics,
    private readonly logs: PluginLogBuffer,
    private readonly options: WebhookSenderOptions,
  ) {
    this.agent = webhookAgent(options.allowPrivateAddresses)
  }

  start(): void {
    this.running = true
    this.loop = this.run()
  }

  /** Tells the sender new deliveries were queued, so that it looks at once. */
  poke(): void {
    this.wake?.()
  }

  async stop(): Promise<void> {
    this.running = false
    this.wake?.()
    await this.loop
    await this.agent.close().catch(() => {})
    await this.logs.flush(this.deps).catch(() => {})
  }

  private async run(): Promise<void> {
    while (this.running) {
      let leased = 0
      try {
        leased = await this.leaseAndSend()
        await this.logs.flush(this.deps)
      } catch (err) {
        this.deps.log('webhook sender failed; trying again', err)
      }
      // Rests until something is due, a delivery ends (its config may have more), or new deliveries are queued.
      if (leased === 0 && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.options.idleMs ?? 250)
          this.wake = () => {
            clearTimeout(timer)
            resolve()
          }
        })
        this.wake = undefined
      }
    }
    await Promise.all(this.inFlight.values())
  }

  /** Each config's deliveries on their way: a config is leased more only once its last lease is done. */
  private readonly inFlight = new Map<number, Promise<void>>()

  /**
   * Leases what is due for configs with nothing in flight, and sends it without waiting: an
   * endpoint that is slow or down holds up its own deliveries only. Answers how many were leased.
   */
  private async leaseAndSend(): Promise<number> {
    // Past the request's timeout: a server that died mid-send frees its deliveries soon after.
    const leaseSeconds = Math.ceil(this.options.timeoutMs / 1000) + 5
    const due = await pluginWebhookOutbox.leaseDueDeliveries(this.deps.sql, LEASE_BATCH, this.options.concurrency, leaseSeconds, [
      ...this.inFlight.keys(),
    ])
    const byConfig = new Map<number, LeasedDelivery[]>()
    for (const delivery of due) {
      const list = byConfig.get(delivery.plugin_config_id)
      if (list) list.push(delivery)
      else byConfig.set(delivery.plugin_config_id, [delivery])
    }
    for (const [configId, deliveries] of byConfig) {
      const sending = Promise.all(
        deliveries.map((d) => this.deliver(d).catch((err: unknown) => this.deps.log('webhook delivery failed', err))),
      )
        .then(() => undefined)
        .finally(() => {
          this.inFlight.delete(configId)
          this.wake?.()
        })
      this.inFlight.set(configId, sending)
    }
    return due.length
  }

  private async deliver(delivery: LeasedDelivery): Promise<void> {
    const configRef = { id: delivery.plugin_config_id, project_id: delivery.project_id, plugin_id: delivery.plugin_id }
    const attempt = await this.attempt(delivery)
    const { sql } = this.deps
    if (attempt.ok) {
      await pluginWebhookOutbox.markDelivered(sql, delivery.plugin_config_id, delivery.event_uuid)
      this.appMetrics.record(delivery.plugin_config_id, 'webhook', delivery.attempts > 1 ? 'success_on_retry' : 'success')
      this.options.onOutcome?.('delivered')
      return
    }
    const message = `Delivery of event ${delivery.event_uuid} failed (attempt ${delivery.attempts}): ${attempt.error}`
    if (!attempt.retry) {
      await pluginWebhookOutbox.markUndeliverable(sql, delivery.plugin_config_id, delivery.event_uuid, attempt.error)
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
    await pluginWebhookOutbox.scheduleRetry(sql, delivery.plugin_config_id, delivery.event_uuid, delay, attempt.error)
    this.logs.add(configRef, 'PLUGIN', 'WARN', `${message}. Retrying in ${Math.round(delay / 100) / 10} s.`)
    this.options.onOutcome?.('retry')
  }

  private async attempt(delivery: LeasedDelivery): Promise<Attempt> {
    let request
    try {
      request = webhookRequest(delivery.config, delivery.event as unknown as WebhookEvent)
    } catch (err) {
      return { ok: false, retry: false, error: `The config cannot make a request: ${err instanceof Error ? err.message : String(err)}` }
    }
    try {
      if (!this.options.allowPrivateAddresses) checkLiteralHost(request.url)
      const res = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs),
        dispatcher: this.agent,
      })
      await drain(res)
      if (res.ok) return { ok: true }
      return {
        ok: false,
        retry: isRetryableStatus(res.status),
        error: `${request.method} ${request.url} answered ${res.status} ${res.statusText}`.trim(),
        retryAfterMs: parseRetryAfter(res.headers.get('retry-after')),
      }
    } catch (err) {
      // Not retried: the address will not change by itself. Kept for a replay once it is allowed or fixed.
      const refused =
        err instanceof PrivateAddressError ? err : err instanceof Error && err.cause instanceof PrivateAddressError ? err.cause : undefined
      if (refused) return { ok: false, retry: false, error: `${request.method} ${request.url} was not sent: ${refused.message}` }
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')
      const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : ''
      return {
        ok: false,
        retry: true,
        error: timedOut
          ? `${request.method} ${request.url} did not answer within ${this.options.timeoutMs} ms`
          : `${request.method} ${request.url} could not be reached${cause}`,
      }
    }
  }

  private async disable(delivery: LeasedDelivery, error: string, failingForS: number): Promise<void> {
    const hours = Math.round((failingForS / 3600) * 10) / 10
    // The delivery stays pending: a replay after the endpoint is fixed sends it.
    await pluginWebhookOutbox.scheduleRetry(this.deps.sql, delivery.plugin_config_id, delivery.event_uuid, 0, error)
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

async function drain(res: Response): Promise<void> {
  if (!res.body) return
  let read = 0
  const reader = res.body.getReader() as ReadableStreamDefaultReader<Uint8Array>
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      read += value.byteLength
      if (read > MAX_RESPONSE_BYTES) {
        await reader.cancel()
        return
      }
    }
  } catch {
    // What the endpoint answered does not matter beyond its status.
  }
}
