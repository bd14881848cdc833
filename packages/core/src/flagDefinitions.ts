import { LocalTtlCache } from '@burrow/cache'
import type { FlagDefinition } from '@burrow/flags'
import { featureFlags } from '@burrow/postgres'
import type { CoreDeps } from './deps'
import { flagDefinitionsCacheKey } from './featureFlags'

const FRESH_MS = 30_000

/**
 * The active flags of each project, kept in memory for evaluation. A flag change drops the
 * project's entry on every instance (pub/sub through the shared cache), so /decide/ sees it
 * within moments; the freshness window only bounds how stale an entry can get if a message is lost.
 */
export class FlagDefinitionsResolver {
  private readonly local: LocalTtlCache<FlagDefinition[]>

  constructor(private readonly deps: CoreDeps) {
    this.local = new LocalTtlCache((key) => this.load(Number(key)), { freshMs: FRESH_MS, maxEntries: 10_000 })
    deps.cache.onInvalidation((key) => {
      if (key.startsWith('project-flags:')) this.local.delete(key.slice('project-flags:'.length))
    })
  }

  forProject(projectId: number): Promise<FlagDefinition[]> {
    return this.local.get(String(projectId))
  }

  private async load(projectId: number): Promise<FlagDefinition[]> {
    const rows = await featureFlags.activeFeatureFlags(this.deps.sql, projectId)
    return rows.map((row) => ({
      id: row.id,
      key: row.key,
      filters: row.filters as FlagDefinition['filters'],
      ensure_experience_continuity: row.ensure_experience_continuity,
      version: row.version,
    }))
  }
}

export { flagDefinitionsCacheKey }
