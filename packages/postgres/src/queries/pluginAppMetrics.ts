import type { Sql } from '../connect'

export interface AppMetricIncrement {
  pluginConfigId: number
  category: string
  successes: number
  successesOnRetry: number
  failures: number
  lastError: string | undefined
}

/** Adds counts to each (config, category)'s current hour. */
export async function addAppMetrics(sql: Sql, increments: AppMetricIncrement[]): Promise<void> {
  if (increments.length === 0) return
  await sql`
    insert into plugin_app_metrics as m (plugin_config_id, category, hour, successes, successes_on_retry, failures, last_error, last_error_at)
    select c.id, c.category, date_trunc('hour', now()), c.successes, c.retried, c.failures, c.last_error,
      case when c.last_error is null then null else now() end
    from unnest(
      ${increments.map((i) => i.pluginConfigId)}::int[],
      ${increments.map((i) => i.category)}::text[],
      ${increments.map((i) => i.successes)}::bigint[],
      ${increments.map((i) => i.successesOnRetry)}::bigint[],
      ${increments.map((i) => i.failures)}::bigint[],
      ${increments.map((i) => i.lastError ?? null)}::text[]) as c(id, category, successes, retried, failures, last_error)
    where exists (select 1 from plugin_configs p where p.id = c.id)
    on conflict (plugin_config_id, category, hour) do update set
      successes = m.successes + excluded.successes,
      successes_on_retry = m.successes_on_retry + excluded.successes_on_retry,
      failures = m.failures + excluded.failures,
      last_error = coalesce(excluded.last_error, m.last_error),
      last_error_at = coalesce(excluded.last_error_at, m.last_error_at)`
}

/** (successes + successes on retry) / (those + failures) of each config over the last 24 hours; absent without data. */
export async function deliveryRates24h(sql: Sql, configIds: number[]): Promise<Map<number, number>> {
  if (configIds.length === 0) return new Map()
  const rows = await sql<{ id: number; ok: string; failures: string }[]>`
    select plugin_config_id as id, sum(successes + successes_on_retry) as ok, sum(failures) as failures
    from plugin_app_metrics
    where plugin_config_id = any(${configIds}::int[]) and hour > now() - interval '24 hours'
    group by plugin_config_id`
  const rates = new Map<number, number>()
  for (const row of rows) {
    const ok = Number(row.ok)
    const total = ok + Number(row.failures)
    if (total > 0) rates.set(row.id, ok / total)
  }
  return rates
}

export interface AppMetricsTotals {
  category: string
  successes: number
  successes_on_retry: number
  failures: number
  last_error: string | null
}

/** A config's totals per category over the last `hours`. */
export async function appMetricsTotals(sql: Sql, configId: number, hours: number): Promise<AppMetricsTotals[]> {
  const rows = await sql<
    { category: string; successes: string; successes_on_retry: string; failures: string; last_error: string | null }[]
  >`
    select category, sum(successes) as successes, sum(successes_on_retry) as successes_on_retry, sum(failures) as failures,
      (array_agg(last_error order by last_error_at desc nulls last))[1] as last_error
    from plugin_app_metrics
    where plugin_config_id = ${configId} and hour > now() - make_interval(hours => ${hours})
    group by category order by category`
  return rows.map((r) => ({
    category: r.category,
    successes: Number(r.successes),
    successes_on_retry: Number(r.successes_on_retry),
    failures: Number(r.failures),
    last_error: r.last_error,
  }))
}
