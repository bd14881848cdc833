import { LocalTtlCache } from '@burrow/cache'
import { pluginConfigs, type PluginConfigRow } from '@burrow/postgres'
import type { CoreDeps } from '@burrow/core'
import { catalogEntry, GEOIP, type PluginEnvironment } from './catalog'
import { INSTANCE_ID, logSystemEvent } from './logs'
import type { LoadedTransformation } from './transformations/runner'

/** What runs for one project: its enabled transformations in order, and its enabled destinations. */
export interface ProjectPlugins {
  transformations: LoadedTransformation[]
  /** Enabled configs of destinations (onEvent plugins). */
  destinations: PluginConfigRow[]
  /** Transformation configs whose setup failed, with why (logged when loaded). */
  setupFailures: Array<{ config: PluginConfigRow; error: Error }>
}

const KEY = 'plugin-configs'
/** Bounds how stale a server's view can get if an invalidation message is lost. */
const FRESH_MS = 30_000

/** Tells every instance that a project's plugin configs changed. */
export async function pluginConfigsChanged(deps: CoreDeps): Promise<void> {
  try {
    await deps.cache.publishInvalidation(KEY)
  } catch (err) {
    deps.log('could not announce a plugin config change', err)
  }
}

export function labelOf(config: PluginConfigRow): string {
  return `${catalogEntry(config.plugin_id)?.name ?? `Plugin ${config.plugin_id}`} (${config.id})`
}

/**
 * The enabled plugin configs of every project, kept in memory and loaded in one query (a server
 * has few): a batch of events looks its projects up without a query, and a project without
 * plugins costs one map lookup. A change on any instance drops the copy everywhere (pub/sub
 * through the shared cache), so it takes effect within moments.
 */
export class PluginConfigsResolver {
  private readonly local: LocalTtlCache<Map<number, ProjectPlugins>>
  /** The configs this instance runs, as last loaded: what starts and stops is logged. */
  private loaded = new Map<number, PluginConfigRow>()

  constructor(
    deps: CoreDeps,
    private readonly env: PluginEnvironment & { geoIpReady(): Promise<void> },
  ) {
    this.local = new LocalTtlCache(() => this.load(deps), { freshMs: FRESH_MS, maxEntries: 1 })
    deps.cache.onInvalidation((key) => {
      if (key === KEY) this.local.delete(KEY)
    })
  }

  /** Every project's plugins (loading them when not in memory). */
  all(): Promise<Map<number, ProjectPlugins>> {
    return this.local.get(KEY)
  }

  private async load(deps: CoreDeps): Promise<Map<number, ProjectPlugins>> {
    const rows = await pluginConfigs.enabledPluginConfigs(deps.sql)
    if (rows.some((row) => row.plugin_id === GEOIP)) await this.env.geoIpReady()
    const byProject = new Map<number, ProjectPlugins>()
    for (const row of rows) {
      const entry = catalogEntry(row.plugin_id)
      if (!entry) continue
      let project = byProject.get(row.project_id)
      if (!project) byProject.set(row.project_id, (project = { transformations: [], destinations: [], setupFailures: [] }))
      if (entry.methods.includes('onEvent')) project.destinations.push(row)
      if (!entry.transformation) continue
      try {
        project.transformations.push({
          configId: row.id,
          pluginId: row.plugin_id,
          label: labelOf(row),
          run: entry.transformation(row.config, this.env),
          changesInPlace: entry.changesInPlace === true,
        })
      } catch (err) {
        project.setupFailures.push({ config: row, error: err instanceof Error ? err : new Error(String(err)) })
      }
    }
    await this.logChanges(deps, rows, byProject)
    return byProject
  }

  /** SYSTEM entries for the configs this instance starts, fails to start and stops running, as PostHog's plugin server writes them. */
  private async logChanges(deps: CoreDeps, rows: PluginConfigRow[], byProject: Map<number, ProjectPlugins>): Promise<void> {
    const failed = new Map([...byProject.values()].flatMap((p) => p.setupFailures.map((f) => [f.config.id, f.error] as const)))
    const now = new Map(rows.map((row) => [row.id, row]))
    const notes: Array<[PluginConfigRow, string, 'INFO' | 'ERROR' | 'DEBUG']> = []
    for (const row of rows) {
      const before = this.loaded.get(row.id)
      if (before && before.updated_at.getTime() === row.updated_at.getTime()) continue
      const error = failed.get(row.id)
      notes.push(
        error
          ? [row, `Plugin failed to load (instance ID ${INSTANCE_ID}): ${error.message}`, 'ERROR']
          : [row, `Plugin loaded (instance ID ${INSTANCE_ID}).`, 'INFO'],
      )
    }
    for (const [id, row] of this.loaded) if (!now.has(id)) notes.push([row, `Plugin unloaded (instance ID ${INSTANCE_ID}).`, 'DEBUG'])
    this.loaded = now
    for (const [row, message, type] of notes) {
      await logSystemEvent(deps, row, message, type).catch((err: unknown) => deps.log('could not write a plugin log entry', err))
    }
  }
}
