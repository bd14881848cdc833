import { randomUUID } from 'node:crypto'
import type {
  Page,
  PageQuery,
  Plugin,
  PluginConfig,
  PluginConfigCreate,
  PluginConfigUpdate,
  PluginJobRequest,
  PluginLogEntry,
} from '@burrow/contracts'
import { problems } from '@burrow/contracts'
import { pluginAppMetrics, pluginConfigs, type PluginConfigRow, type UserRow } from '@burrow/postgres'
import type { CoreDeps } from '@burrow/core'
import { catalogEntry, toPlugin, type CatalogEntry } from './catalog'
import { checkSecretsFollowHost, maskSecrets, mergeConfig } from './config'
import { listLogEntries, logSystemEvent, type LogQuery } from './logs'
import { pluginConfigsChanged } from './projectPlugins'
import { serialIdOrNotFound } from '@burrow/core'

export { allPlugins } from './catalog'

function pluginOf(row: PluginConfigRow): CatalogEntry {
  const entry = catalogEntry(row.plugin_id)
  if (!entry) throw new Error(`plugin config ${row.id} names plugin ${row.plugin_id}, which is not in the catalog`)
  return entry
}

/** What a config's plugins delivered in the last 24 hours, 1 without data (as PostHog answers). */
async function deliveryRates(deps: CoreDeps, rows: PluginConfigRow[]): Promise<Map<number, number>> {
  return pluginAppMetrics.deliveryRates24h(
    deps.sql,
    rows.map((r) => r.id),
  )
}

function toPluginConfig(row: PluginConfigRow, options: { withPlugin: boolean; rates: Map<number, number> }): PluginConfig {
  const entry = pluginOf(row)
  return {
    id: row.id,
    plugin: row.plugin_id,
    enabled: row.enabled,
    order: row.order,
    config: maskSecrets(entry.configSchema, row.config),
    error: row.error,
    team_id: row.project_id,
    plugin_info: options.withPlugin ? (toPlugin(entry) satisfies Plugin) : null,
    delivery_rate_24h: options.rates.get(row.id) ?? 1,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    name: entry.name,
    description: entry.description,
    deleted: row.deleted,
  }
}

async function findConfig(deps: CoreDeps, projectId: number, idParam: string, includeDeleted = false): Promise<PluginConfigRow> {
  const row = await pluginConfigs.findPluginConfig(deps.sql, projectId, serialIdOrNotFound(idParam), { includeDeleted })
  if (!row) throw problems.notFound()
  return row
}

export async function listPluginConfigs(deps: CoreDeps, projectId: number, page: PageQuery): Promise<Page<PluginConfig>> {
  const { count, rows } = await pluginConfigs.listPluginConfigs(deps.sql, projectId, page)
  const rates = await deliveryRates(deps, rows)
  return { count, ...page, results: rows.map((row) => toPluginConfig(row, { withPlugin: false, rates })) }
}

export async function getPluginConfig(deps: CoreDeps, projectId: number, idParam: string): Promise<PluginConfig> {
  return withRates(deps, await findConfig(deps, projectId, idParam))
}

async function withRates(deps: CoreDeps, row: PluginConfigRow): Promise<PluginConfig> {
  return toPluginConfig(row, { withPlugin: true, rates: await deliveryRates(deps, [row]) })
}

export async function createPluginConfig(deps: CoreDeps, projectId: number, input: PluginConfigCreate): Promise<PluginConfig> {
  const entry = catalogEntry(input.plugin)
  if (!entry) throw problems.validation('plugin', `Invalid pk "${input.plugin}" - object does not exist.`, 'does_not_exist')
  const enabled = input.enabled ?? false
  const config = mergeConfig(entry.configSchema, {}, input.config, enabled)
  if (enabled) entry.validate?.(config)
  const row = await pluginConfigs.insertPluginConfig(deps.sql, projectId, entry.id, {
    enabled,
    order: input.order ?? 0,
    config,
    error: input.error,
  })
  if (!row) throw problems.validation('plugin', `The project already has a config of the plugin "${entry.name}".`, 'unique')
  await logSystemEvent(deps, row, `Config created (${enabled ? 'enabled' : 'disabled'}).`)
  if (enabled) await pluginConfigsChanged(deps)
  return withRates(deps, row)
}

export async function updatePluginConfig(
  deps: CoreDeps,
  projectId: number,
  idParam: string,
  input: PluginConfigUpdate,
): Promise<PluginConfig> {
  const current = await findConfig(deps, projectId, idParam)
  if (input.deleted === true) return withRates(deps, await softDelete(deps, projectId, current.id))
  const entry = pluginOf(current)
  const enabled = input.enabled ?? current.enabled
  if (entry.secretsFollowHostOf) checkSecretsFollowHost(entry.configSchema, current.config, input.config, entry.secretsFollowHostOf)
  const config = mergeConfig(entry.configSchema, current.config, input.config, enabled)
  if (enabled) entry.validate?.(config)
  const row = await pluginConfigs.updatePluginConfig(deps.sql, projectId, current.id, {
    enabled: input.enabled,
    order: input.order,
    config,
    error: input.error,
  })
  if (!row) throw problems.notFound()
  if (row.enabled !== current.enabled) await logSystemEvent(deps, row, row.enabled ? 'Plugin enabled.' : 'Plugin disabled.')
  if (input.config !== undefined) await logSystemEvent(deps, row, 'Config updated.')
  if (row.enabled || current.enabled) await pluginConfigsChanged(deps)
  return withRates(deps, row)
}

/** Deleting disables the config and hides it; its log stays readable. */
export async function deletePluginConfig(deps: CoreDeps, projectId: number, idParam: string): Promise<void> {
  await softDelete(deps, projectId, serialIdOrNotFound(idParam))
}

async function softDelete(deps: CoreDeps, projectId: number, id: number): Promise<PluginConfigRow> {
  const row = await pluginConfigs.softDeletePluginConfig(deps.sql, projectId, id)
  if (!row) throw problems.notFound()
  await logSystemEvent(deps, row, 'Config deleted.')
  await pluginConfigsChanged(deps)
  return row
}

/** The frontend module of the config's plugin; no built-in plugin has one, which the module says. */
export async function pluginConfigFrontend(deps: CoreDeps, projectId: number, idParam: string): Promise<string> {
  await findConfig(deps, projectId, idParam)
  return '"use strict";\nexport function getFrontendApp () { return {"no_frontend": true} }\n'
}

/** Queues one of the plugin's jobs, checked against the jobs it declares and their payloads. */
export async function enqueuePluginJob(
  deps: CoreDeps,
  projectId: number,
  user: UserRow,
  idParam: string,
  request: PluginJobRequest,
): Promise<void> {
  const row = await findConfig(deps, projectId, idParam)
  const job = pluginOf(row).jobs?.[request.job.type]
  if (!job) throw problems.validation('job__type', `The plugin has no job "${request.job.type}".`, 'invalid_choice')
  for (const [name, spec] of Object.entries(job.payload)) {
    if (spec.required && request.job.operation === 'start' && request.job.payload[name] === undefined) {
      throw problems.validation(`job__payload__${name}`, 'This field is required.', 'required')
    }
  }
  await pluginConfigs.insertPluginJob(deps.sql, {
    id: randomUUID(),
    pluginConfigId: row.id,
    type: request.job.type,
    operation: request.job.operation,
    payload: { ...request.job.payload, $operation: request.job.operation },
    createdById: user.id,
  })
  await logSystemEvent(deps, row, `Job "${request.job.type}" enqueued (${request.job.operation}).`)
}

/** Sets the order of enabled configs (`{"<config id>": order}`); answers every enabled config. */
export async function rearrangePluginConfigs(deps: CoreDeps, projectId: number, orders: Record<string, number>): Promise<PluginConfig[]> {
  const rows = await pluginConfigs.rearrangePluginConfigs(
    deps.sql,
    projectId,
    new Map(Object.entries(orders).map(([id, order]) => [Number(id), order])),
  )
  await pluginConfigsChanged(deps)
  const rates = await deliveryRates(deps, rows)
  return rows.map((row) => toPluginConfig(row, { withPlugin: true, rates }))
}

export async function pluginConfigLogs(deps: CoreDeps, projectId: number, idParam: string, query: LogQuery): Promise<Page<PluginLogEntry>> {
  return listLogEntries(deps, await findConfig(deps, projectId, idParam, true), query)
}
