import type { Sql } from '../connect'

export interface OutboxEntry {
  plugin_config_id: number
  event_uuid: string
  project_id: number
  event: Record<string, unknown>
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
 * Queues the events of a historical export run (`jobId`) for delivery, every one of them: an
 * event the config already delivered (or gave up on) is queued again, one still waiting is sent
 * once as it is. An event this run queued before (a run taken again after its server died) is
 * left as it is, so each is delivered once per run. Answers how many of the entries this run
 * sends (all but those of a config deleted meanwhile).
 */
export async function enqueueExport(sql: Sql, jobId: string, entries: OutboxEntry[]): Promise<number> {
  if (entries.length === 0) return 0
  const doc = sql.json(entries.map((e) => ({ c: e.plugin_config_id, u: e.event_uuid, p: e.project_id, e: e.event })) as never)
  const [row] = await sql<{ sent: string }[]>`
    with entry as (
      -- An event read twice (stored twice in ClickHouse) is one delivery: one statement may not update a row twice.
      select distinct on ((x->>'c')::int, (x->>'u')::uuid) (x->>'c')::int as c, (x->>'u')::uuid as u, (x->>'p')::int as p, x->'e' as e
      from jsonb_array_elements(${doc}) as x
      where exists (select 1 from plugin_configs c where c.id = (x->>'c')::int)
    ), queued as (
      -- Run though the answer does not read it, as PostgreSQL runs every data-modifying WITH.
      insert into plugin_webhook_outbox as o (plugin_config_id, event_uuid, project_id, event, export_job_id)
      select c, u, p, e, ${jobId}::uuid from entry
      on conflict (plugin_config_id, event_uuid) do update set
        export_job_id = excluded.export_job_id,
        -- One waiting (perhaps being sent right now) is sent once more anyway: left in its place in line.
        event = case when o.status = 'pending' then o.event else excluded.event end,
        status = 'pending',
        attempts = case when o.status = 'pending' then o.attempts else 0 end,
        next_attempt_at = case when o.status = 'pending' then o.next_attempt_at else now() end,
        delivered_at = null,
        last_error = case when o.status = 'pending' then o.last_error else null end
      where o.export_job_id is distinct from excluded.export_job_id
    )
    select count(*) as sent from entry`
  return Number(row?.sent ?? 0)
}

export interface LeasedDelivery extends OutboxEntry {
  attempts: number
  created_at: Date
  next_attempt_at: Date
  /** The config as it is now (url, secret...), and its plugin. */
  config: Record<string, unknown>
  plugin_id: number
}

export interface LeaseRequest {
  /** Deliveries leased at most, across configs. */
  limit: number
  leaseSeconds: number
  /** How many to lease of the configs listed (those this server already sends for)... */
  perConfig: Map<number, number>
  /** ...and of each config not listed. */
  othersPerConfig: number
  /** Configs not to lease for (this server holds enough of theirs). */
  skip: number[]
}

/**
 * Leases the earliest due deliveries of enabled configs, at most so many per config, skipping
 * rows another server holds (FOR UPDATE SKIP LOCKED; a leased row is skipped until its lease runs
 * out). Each lease counts as an attempt. Answers them by config, in next_attempt_at order.
 */
export async function leaseDueDeliveries(sql: Sql, request: LeaseRequest): Promise<LeasedDelivery[]> {
  const wantIds = [...request.perConfig.keys()]
  const wantCounts = wantIds.map((id) => request.perConfig.get(id)!)
  const rows = await sql<LeasedDelivery[]>`
    with wants as (
      select * from unnest(${wantIds}::int[], ${wantCounts}::int[]) as w(id, n)
    ), due as (
      select o.plugin_config_id, o.event_uuid, o.next_attempt_at,
        row_number() over (partition by o.plugin_config_id order by o.next_attempt_at) as rn
      from plugin_webhook_outbox o join plugin_configs c on c.id = o.plugin_config_id and c.enabled and not c.deleted
      where o.status = 'pending' and o.next_attempt_at <= now() and (o.leased_until is null or o.leased_until < now())
        and o.plugin_config_id <> all(${request.skip}::int[])
    ), chosen as (
      select d.plugin_config_id, d.event_uuid from due d left join wants w on w.id = d.plugin_config_id
      where d.rn <= coalesce(w.n, ${request.othersPerConfig})
      order by d.next_attempt_at
      limit ${request.limit}
    ), picked as (
      select o.plugin_config_id, o.event_uuid from plugin_webhook_outbox o
      join chosen d using (plugin_config_id, event_uuid)
      where o.status = 'pending' and (o.leased_until is null or o.leased_until < now())
      for update of o skip locked
    )
    update plugin_webhook_outbox o set leased_until = now() + make_interval(secs => ${request.leaseSeconds}), attempts = o.attempts + 1
    from picked p, plugin_configs c
    where o.plugin_config_id = p.plugin_config_id and o.event_uuid = p.event_uuid and c.id = o.plugin_config_id
    returning o.plugin_config_id, o.event_uuid::text as event_uuid, o.project_id, o.event, o.attempts, o.created_at,
      o.next_attempt_at, c.config, c.plugin_id`
  // An UPDATE's rows come back in no particular order.
  return [...rows].sort(
    (a, b) =>
      a.plugin_config_id - b.plugin_config_id ||
      a.next_attempt_at.getTime() - b.next_attempt_at.getTime() ||
      a.created_at.getTime() - b.created_at.getTime(),
  )
}

/**
 * Gives back leased deliveries that were not sent (the lease is not counted as an attempt), so
 * that any server may lease them at once. Rows whose lease has run out are left alone: another
 * server may hold them now.
 */
export async function releaseDeliveries(sql: Sql, keys: Array<{ configId: number; eventUuid: string }>): Promise<void> {
  if (keys.length === 0) return
  await sql`
    update plugin_webhook_outbox o set leased_until = null, attempts = greatest(o.attempts - 1, 0)
    from unnest(${keys.map((k) => k.configId)}::int[], ${keys.map((k) => k.eventUuid)}::uuid[]) as x(c, u)
    where o.plugin_config_id = x.c and o.event_uuid = x.u and o.status = 'pending' and o.leased_until > now()`
}

export type DeliveryOutcome =
  | { configId: number; eventUuid: string; outcome: 'delivered' }
  /** Due again after `delayMs`; still pending. */
  | { configId: number; eventUuid: string; outcome: 'retry'; delayMs: number; error: string }
  /** Refused by the endpoint, not retried: kept for a replay. */
  | { configId: number; eventUuid: string; outcome: 'undeliverable'; error: string }

/** Records how many attempts ended, in one statement, and ends their leases. */
export async function recordOutcomes(sql: Sql, outcomes: DeliveryOutcome[]): Promise<void> {
  if (outcomes.length === 0) return
  const configIds = outcomes.map((o) => o.configId)
  const uuids = outcomes.map((o) => o.eventUuid)
  const kinds = outcomes.map((o) => o.outcome)
  const delaysS = outcomes.map((o) => (o.outcome === 'retry' ? o.delayMs / 1000 : 0))
  const errors = outcomes.map((o) => (o.outcome === 'delivered' ? '' : o.error))
  await sql`
    update plugin_webhook_outbox o set
      -- A retry leaves the status as it is (a row another server delivered meanwhile stays delivered).
      status = case x.kind when 'delivered' then 'delivered' when 'undeliverable' then 'failed' else o.status end,
      delivered_at = case when x.kind = 'delivered' then now() else o.delivered_at end,
      next_attempt_at = case when x.kind = 'retry' then now() + make_interval(secs => x.delay_s) else o.next_attempt_at end,
      leased_until = null,
      last_error = nullif(x.error, '')
    from unnest(${configIds}::int[], ${uuids}::uuid[], ${kinds}::text[], ${delaysS}::float8[], ${errors}::text[])
      as x(c, u, kind, delay_s, error)
    where o.plugin_config_id = x.c and o.event_uuid = x.u`
}

export async function scheduleRetry(sql: Sql, configId: number, eventUuid: string, delayMs: number, error: string): Promise<void> {
  await recordOutcomes(sql, [{ configId, eventUuid, outcome: 'retry', delayMs, error }])
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
