import type { Sql } from '../connect'

export interface OutboxEntry {
  plugin_config_id: number
  event_uuid: string
  project_id: number
  event: Record<string, unknown>
}

export interface LeasedDelivery extends OutboxEntry {
  attempts: number
  created_at: Date
  /** The config as it is now (url, secret...), and its plugin. */
  config: Record<string, unknown>
  plugin_id: number
}

/** Adds deliveries; one already there (a batch stored again, an export run twice) is left as it is. */
export async function enqueueDeliveries(sql: Sql, entries: OutboxEntry[]): Promise<number> {
  if (entries.length === 0) return 0
  // One JSON document of all rows: each event keeps its own JSON types (an array of texts cast to jsonb[] would not).
  const doc = sql.json(entries.map((e) => ({ c: e.plugin_config_id, u: e.event_uuid, p: e.project_id, e: e.event })) as never)
  const rows = await sql`
    insert into plugin_webhook_outbox (plugin_config_id, event_uuid, project_id, event)
    select (x->>'c')::int, (x->>'u')::uuid, (x->>'p')::int, x->'e' from jsonb_array_elements(${doc}) as x
    -- A config deleted since the caller looked has nothing to send (and must not fail the batch).
    where exists (select 1 from plugin_configs c where c.id = (x->>'c')::int)
    on conflict (plugin_config_id, event_uuid) do nothing
    returning 1`
  return rows.length
}

/**
 * Leases up to `limit` due deliveries of enabled configs, at most `perConfig` of each config
 * (bounded concurrency per endpoint), skipping rows another server holds.
 */
export async function leaseDueDeliveries(
  sql: Sql,
  limit: number,
  perConfig: number,
  leaseSeconds: number,
  /** Configs this server is still sending for. */
  busyConfigIds: number[] = [],
): Promise<LeasedDelivery[]> {
  return sql<LeasedDelivery[]>`
    with due as (
      select o.plugin_config_id, o.event_uuid,
        row_number() over (partition by o.plugin_config_id order by o.next_attempt_at) as n
      from plugin_webhook_outbox o join plugin_configs c on c.id = o.plugin_config_id and c.enabled and not c.deleted
      where o.status = 'pending' and o.next_attempt_at <= now() and (o.leased_until is null or o.leased_until < now())
        and o.plugin_config_id <> all(${busyConfigIds}::int[])
      order by o.next_attempt_at
      limit ${limit * 4}
    ), picked as (
      select o.plugin_config_id, o.event_uuid from plugin_webhook_outbox o
      join due d using (plugin_config_id, event_uuid)
      where d.n <= ${perConfig} and o.status = 'pending' and (o.leased_until is null or o.leased_until < now())
      limit ${limit}
      for update of o skip locked
    )
    update plugin_webhook_outbox o set leased_until = now() + make_interval(secs => ${leaseSeconds}), attempts = o.attempts + 1
    from picked p, plugin_configs c
    where o.plugin_config_id = p.plugin_config_id and o.event_uuid = p.event_uuid and c.id = o.plugin_config_id
    returning o.plugin_config_id, o.event_uuid::text as event_uuid, o.project_id, o.event, o.attempts, o.created_at, c.config, c.plugin_id`
}

export async function markDelivered(sql: Sql, configId: number, eventUuid: string): Promise<void> {
  await sql`
    update plugin_webhook_outbox set status = 'delivered', delivered_at = now(), leased_until = null, last_error = null
    where plugin_config_id = ${configId} and event_uuid = ${eventUuid}`
}

export async function scheduleRetry(sql: Sql, configId: number, eventUuid: string, delayMs: number, error: string): Promise<void> {
  await sql`
    update plugin_webhook_outbox set next_attempt_at = now() + make_interval(secs => ${delayMs / 1000}), leased_until = null,
      last_error = ${error}
    where plugin_config_id = ${configId} and event_uuid = ${eventUuid}`
}

/** A delivery that will not be retried (refused by the endpoint): kept for a replay. */
export async function markUndeliverable(sql: Sql, configId: number, eventUuid: string, error: string): Promise<void> {
  await sql`
    update plugin_webhook_outbox set status = 'failed', leased_until = null, last_error = ${error}
    where plugin_config_id = ${configId} and event_uuid = ${eventUuid}`
}

/** Puts a config's undelivered events (failed or waiting) back in line, due now; answers how many. */
export async function replayDeliveries(sql: Sql, configId: number): Promise<number> {
  const rows = await sql`
    update plugin_webhook_outbox set status = 'pending', next_attempt_at = now(), attempts = 0, leased_until = null
    where plugin_config_id = ${configId} and status in ('failed', 'pending')
    returning 1`
  return rows.length
}

/** Forgets deliveries made more than `days` ago (they only guard against sending an event twice). */
export async function pruneDelivered(sql: Sql, days: number): Promise<void> {
  await sql`delete from plugin_webhook_outbox where status = 'delivered' and delivered_at < now() - make_interval(days => ${days})`
}

export async function outboxCounts(sql: Sql): Promise<{ pending: number; failed: number }> {
  const [row] = await sql<{ pending: string; failed: string }[]>`
    select count(*) filter (where status = 'pending') as pending, count(*) filter (where status = 'failed') as failed
    from plugin_webhook_outbox where status <> 'delivered'`
  return { pending: Number(row?.pending ?? 0), failed: Number(row?.failed ?? 0) }
}
