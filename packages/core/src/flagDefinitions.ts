import { LocalTtlCache } from '@burrow/cache'
import type { CohortProperties, FlagDefinition, FlagProperty } from '@burrow/flags'
import { featureFlags, groupTypes } from '@burrow/postgres'
import type { CoreDeps } from './deps'
import { flagDefinitionsCacheKey } from './featureFlags'
import { cohortsOfFlags, type FlagCohorts } from './flagCohorts'

const FRESH_MS = 30_000

/** A project's active flags, with what evaluating them needs beyond the request. */
export interface ProjectFlags {
  flags: FlagDefinition[]
  cohorts: FlagCohorts
  /** Person property keys the conditions read (those of dynamic cohorts included). */
  personKeys: string[]
  /** Keys of the experience-continuity flags. */
  continuityKeys: string[]
  /** Group type names by index, for group flags. */
  groupTypeNames: Record<number, string>
}

function personKeysIn(values: ReadonlyArray<CohortProperties | FlagProperty>, into: Set<string>): void {
  for (const v of values) {
    if ('values' in v && Array.isArray(v.values)) personKeysIn(v.values, into)
    else if ((v as FlagProperty).type !== 'cohort' && (v as FlagProperty).type !== 'group') into.add((v as FlagProperty).key)
  }
}

/**
 * The active flags of each project, kept in memory for evaluation. A flag or cohort change
 * drops the project's entry on every instance (pub/sub through the shared cache), so /decide/
 * sees it within moments; the freshness window only bounds how stale an entry can get if a
 * message is lost.
 */
export class FlagDefinitionsResolver {
  private readonly local: LocalTtlCache<ProjectFlags>

  constructor(private readonly deps: CoreDeps) {
    this.local = new LocalTtlCache((key) => this.load(Number(key)), { freshMs: FRESH_MS, maxEntries: 10_000 })
    deps.cache.onInvalidation((key) => {
      if (key.startsWith('project-flags:')) this.local.delete(key.slice('project-flags:'.length))
    })
  }

  forProject(projectId: number): Promise<ProjectFlags> {
    return this.local.get(String(projectId))
  }

  private async load(projectId: number): Promise<ProjectFlags> {
    const rows = await featureFlags.activeFeatureFlags(this.deps.sql, projectId)
    const flags: FlagDefinition[] = rows.map((row) => ({
      id: row.id,
      key: row.key,
      filters: row.filters as FlagDefinition['filters'],
      ensure_experience_continuity: row.ensure_experience_continuity,
      version: row.version,
    }))
    const cohorts = await cohortsOfFlags(this.deps.sql, projectId, flags)
    const mapping = await groupTypes.groupTypeMapping(this.deps.sql, projectId)
    const keys = new Set<string>()
    for (const flag of flags) {
      if (flag.filters.aggregation_group_type_index !== undefined && flag.filters.aggregation_group_type_index !== null) continue
      for (const condition of flag.filters.groups ?? [{ properties: flag.filters.properties ?? [] }]) personKeysIn(condition.properties ?? [], keys)
    }
    for (const definition of Object.values(cohorts.dynamic)) personKeysIn(definition.values, keys)
    return {
      flags,
      cohorts,
      personKeys: [...keys],
      continuityKeys: flags.filter((f) => f.ensure_experience_continuity).map((f) => f.key),
      groupTypeNames: Object.fromEntries(mapping.map((m) => [m.group_type_index, m.group_type])),
    }
  }
}

export { flagDefinitionsCacheKey }
