import { LocalTtlCache } from '@burrow/cache'
import type { CohortProperties, FlagDefinition, FlagProperty } from '@burrow/flags'
import { featureFlags, groupTypes, projects } from '@burrow/postgres'
import type { CoreDeps } from '../deps'
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
  /** The project's timezone, where date conditions without an offset are read. */
  timezone: string
}

/** Condition types that read no person property. */
const NOT_PERSON = new Set(['cohort', 'group', 'flag'])

function personKeysIn(values: ReadonlyArray<CohortProperties | FlagProperty>, into: Set<string>): void {
  for (const v of values) {
    if ('values' in v && Array.isArray(v.values)) personKeysIn(v.values, into)
    else if (!NOT_PERSON.has((v as FlagProperty).type ?? 'person')) into.add((v as FlagProperty).key)
  }
}

/** Where a resolver loads a project's flags from, and hears that they changed. */
export interface FlagDefinitionsSource {
  load(projectId: number): Promise<ProjectFlags>
  /** Calls `listener` with the id of each project whose flags or their cohorts changed anywhere. */
  onInvalidation(listener: (projectId: number) => void): void
}

const FLAGS_KEY_PREFIX = 'project-flags:'

/**
 * The active flags of each project, kept in this thread's memory for evaluation, loaded from
 * PostgreSQL (for a capture thread: from the main thread's resolver). A flag or cohort change
 * drops the project's entry on every instance (pub/sub through the shared cache), so /decide/
 * sees it within moments; the freshness window only bounds how stale an entry can get if a
 * message is lost.
 */
export class FlagDefinitionsResolver {
  private readonly local: LocalTtlCache<ProjectFlags>
  private readonly listeners: Array<(projectId: number) => void> = []

  /** A resolver backed by PostgreSQL, invalidated through the shared cache. */
  static fromStorage(deps: CoreDeps): FlagDefinitionsResolver {
    return new FlagDefinitionsResolver({
      load: (projectId) => loadProjectFlags(deps, projectId),
      onInvalidation: (listener) =>
        deps.cache.onInvalidation((key) => {
          if (key.startsWith(FLAGS_KEY_PREFIX)) listener(Number(key.slice(FLAGS_KEY_PREFIX.length)))
        }),
    })
  }

  constructor(source: FlagDefinitionsSource) {
    this.local = new LocalTtlCache((key) => source.load(Number(key)), { freshMs: FRESH_MS, maxEntries: 10_000 })
    source.onInvalidation((projectId) => {
      this.local.delete(String(projectId))
      for (const listener of this.listeners) listener(projectId)
    })
  }

  /** Calls `listener` with each project whose flags this resolver forgets because they changed. */
  onInvalidation(listener: (projectId: number) => void): void {
    this.listeners.push(listener)
  }

  forProject(projectId: number): Promise<ProjectFlags> {
    return this.local.get(String(projectId))
  }
}

async function loadProjectFlags(deps: CoreDeps, projectId: number): Promise<ProjectFlags> {
  const rows = await featureFlags.activeFeatureFlags(deps.sql, projectId)
  const flags: FlagDefinition[] = rows.map((row) => ({
    id: row.id,
    key: row.key,
    filters: row.filters,
    ensure_experience_continuity: row.ensure_experience_continuity,
    version: row.version,
  }))
  const cohorts = await cohortsOfFlags(deps.sql, projectId, flags)
  const mapping = await groupTypes.groupTypeMapping(deps.sql, projectId)
  const project = await projects.findProjectById(deps.sql, projectId)
  const keys = new Set<string>()
  for (const flag of flags) {
    if (flag.filters.aggregation_group_type_index !== undefined && flag.filters.aggregation_group_type_index !== null) continue
    for (const condition of [
      ...(flag.filters.groups ?? [{ properties: flag.filters.properties ?? [] }]),
      ...(flag.filters.super_groups ?? []),
    ])
      personKeysIn(condition.properties ?? [], keys)
  }
  for (const definition of Object.values(cohorts.dynamic)) personKeysIn(definition.values, keys)
  return {
    flags,
    cohorts,
    personKeys: [...keys],
    continuityKeys: flags.filter((f) => f.ensure_experience_continuity).map((f) => f.key),
    groupTypeNames: Object.fromEntries(mapping.map((m) => [m.group_type_index, m.group_type])),
    timezone: project?.timezone ?? 'UTC',
  }
}

export { flagDefinitionsCacheKey }
