import type { Sql } from '../connect'
import { selectPage, type PageWindow } from './pages'

export interface PluginConfigRow {
  id: number
  project_id: number
  plugin_id: number
  enabled: boolean
  order: number
  config: Record<string, unknown>
  error: Record<string, unknown> | null
  deleted: boolean
  created_at: Date
  updated_at: Date
}

export interface PluginConfigWrite {
  enabled?: boolean | undefined
  order?: number | undefined
  config?: Record<string, unknown> | undefined
  error?: Record<string, unknown> | null | undefined
}

function columnValues(sql: Sql, write: PluginConfigWrite): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  if (write.enabled !== undefined) values.enabled = write.enabled
  if (write.order !== undefined) values.order = write.order
  if (write.config !== undefined) values.config = sql.json(write.config as never)
  if (write.error !== undefined) values.error = write.error === null ? null : sql.json(write.error as never)
  return values
}

/** Inserts a config; undefined when the project already has a live config of this plugin. */
export async function insertPluginConfig(
  sql: Sql,
  projectId: number,
  pluginId: number,
  write: PluginConfigWrite,
): Promise<PluginConfigRow | undefined> {
  const values = { ...columnValues(sql, write), project_id: projectId, plugin_id: pluginId }
  const [row] = await sql<PluginConfigRow[]>`
    insert into plugin_configs ${sql(values as never)}
    on conflict (project_id, plugin_id) where not deleted do nothing
    returning *`
  return row
}

export async function updatePluginConfig(
  sql: Sql,
  projectId: number,
  id: number,
  write: PluginConfigWrite,
): Promise<PluginConfigRow | undefined> {
  const values = columnValues(sql, write)
  const [row] = await sql<PluginConfigRow[]>`
    update plugin_configs set ${sql({ ...values, updated_at: sql`now()` } as never)}
    where project_id = ${projectId} and id = ${id} and not deleted
    returning *`
  return row
}

/** Deleting keeps the row (its logs still name it) but disables it and hides it. */
export async function softDeletePluginConfig(sql: Sql, projectId: number, id: number): Promise<PluginConfigRow | undefined> {
  const [row] = await sql<PluginConfigRow[]>`
    update plugin_configs set deleted = true, enabled = false, updated_at = now()
    where project_id = ${projectId} and id = ${id} and not deleted
    returning *`
  return row
}

/** A config of the project; deleted ones only when asked for (their logs stay readable). */
export async function findPluginConfig(
  sql: Sql,
  projectId: number,
  id: number,
  options: { includeDeleted?: boolean } = {},
): Promise<PluginConfigRow | undefined> {
  const [row] = await sql<PluginConfigRow[]>`
    select * from plugin_configs where project_id = ${projectId} and id = ${id}
      ${options.includeDeleted ? sql`` : sql`and not deleted`}`
  return row
}

/** The project's live configs in the order plugins run: by `order`, then plugin. */
export function listPluginConfigs(sql: Sql, projectId: number, page: PageWindow): Promise<{ count: number; rows: PluginConfigRow[] }> {
  return selectPage<PluginConfigRow>(sql, {
    table: 'plugin_configs',
    where: sql`project_id = ${projectId} and not deleted`,
    orderBy: sql`"order", plugin_id, id`,
    page,
  })
}

/** Sets `order` of the project's enabled configs named in `orders`; answers all enabled configs. */
export async function rearrangePluginConfigs(sql: Sql, projectId: number, orders: Map<number, number>): Promise<PluginConfigRow[]> {
  if (orders.size > 0) {
    await sql`
      update plugin_configs c set "order" = o.new_order, updated_at = now()
      from unnest(${[...orders.keys()]}::int[], ${[...orders.values()]}::int[]) as o(id, new_order)
      where c.id = o.id and c.project_id = ${projectId} and c.enabled and not c.deleted and c."order" <> o.new_order`
  }
  return sql<PluginConfigRow[]>`
    select * from plugin_configs where project_id = ${projectId} and enabled and not deleted
    order by "order", plugin_id, id`
}

export async function insertPluginJob(
  sql: Sql,
  job: { id: string; pluginConfigId: number; type: string; operation: string; payload: Record<string, unknown>; createdById: number },
): Promise<void> {
  await sql`
    insert into plugin_jobs (id, plugin_config_id, type, operation, payload, created_by_id)
    values (${job.id}, ${job.pluginConfigId}, ${job.type}, ${job.operation}, ${sql.json(job.payload as never)}, ${job.createdById})`
}

export async function listPluginJobs(sql: Sql, pluginConfigId: number) {
  return sql<{ id: string; type: string; operation: string; payload: Record<string, unknown>; status: string }[]>`
    select id, type, operation, payload, status from plugin_jobs where plugin_config_id = ${pluginConfigId} order by created_at`
}

/** Every enabled, live config, each project's in the order its plugins run. */
export function enabledPluginConfigs(sql: Sql): Promise<PluginConfigRow[]> {
  return sql<PluginConfigRow[]>`
    select * from plugin_configs where enabled and not deleted
    order by project_id, "order", plugin_id, id`
}

/** Disables a config on the system's behalf, with why in `error`; undefined when it was already off. */
export async function disablePluginConfig(sql: Sql, id: number, error: Record<string, unknown>): Promise<PluginConfigRow | undefined> {
  const [row] = await sql<PluginConfigRow[]>`
    update plugin_configs set enabled = false, error = ${sql.json(error as never)}, updated_at = now()
    where id = ${id} and enabled and not deleted
    returning *`
  return row
}

export interface PluginJobRow {
  id: string
  plugin_config_id: number
  type: string
  operation: string
  payload: Record<string, unknown>
  status: string
}

/**
 * Leases the oldest job that is queued, or whose server stopped before finishing it (its lease
 * ran out): only one server gets it.
 */
export async function leaseNextPluginJob(sql: Sql, leaseSeconds: number): Promise<PluginJobRow | undefined> {
  const [row] = await sql<PluginJobRow[]>`
    update plugin_jobs set status = 'running', leased_until = now() + make_interval(secs => ${leaseSeconds}),
      started_at = coalesce(started_at, now())
    where id = (
      select id from plugin_jobs
      where status = 'queued' or (status = 'running' and leased_until < now())
      order by created_at limit 1 for update skip locked)
    returning id, plugin_config_id, type, operation, payload, status`
  return row
}

export async function extendPluginJobLease(sql: Sql, id: string, leaseSeconds: number): Promise<void> {
  await sql`update plugin_jobs set leased_until = now() + make_interval(secs => ${leaseSeconds}) where id = ${id} and status = 'running'`
}

export async function finishPluginJob(
  sql: Sql,
  id: string,
  outcome: { status: 'done' | 'failed' | 'skipped'; error?: string },
): Promise<void> {
  await sql`
    update plugin_jobs set status = ${outcome.status}, error = ${outcome.error ?? null}, finished_at = now(), leased_until = null
    where id = ${id}`
}

/** A config by id alone, deleted ones included (for the system's own work: jobs, replays). */
export async function pluginConfigById(sql: Sql, id: number): Promise<PluginConfigRow | undefined> {
  const [row] = await sql<PluginConfigRow[]>`select * from plugin_configs where id = ${id}`
  return row
}
