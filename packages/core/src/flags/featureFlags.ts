import {
  problems,
  type FeatureFlag,
  type FeatureFlagCreate,
  type FeatureFlagUpdate,
  type LocalEvaluation,
  type Page,
  type PageQuery,
} from '@burrow/contracts'
import { cohorts, featureFlags, groupTypes, projects, type FeatureFlagRow, type UserRow } from '@burrow/postgres'
import type { CoreDeps } from '../deps'
import { assertProjectInReach, type Caller } from '../access/access'
import { refuseBehaviouralCohorts } from '../cohorts/cohortGraph'
import { cohortsOfFlags } from './flagCohorts'
import { checkFlagDependencies } from './flagDependencies'
import { searchTerms } from '../search'
import { serialId, serialIdOrNotFound } from '../ids'
import { userSummaries } from '../access/users'

interface Condition {
  properties?: Array<{ type?: string; value?: unknown }> | null
  rollout_percentage?: number | null
}

/** A flag in PostHog's minimal form, as local evaluation and early access features show it. */
export const minimalFlag = (row: FeatureFlagRow) => ({
  id: row.id,
  team_id: row.project_id,
  name: row.name,
  key: row.key,
  filters: row.filters,
  deleted: row.deleted,
  active: row.active,
  ensure_experience_continuity: row.ensure_experience_continuity,
})
/** The cache key of a project's flag definitions; dropped on every instance when a flag changes. */
export const flagDefinitionsCacheKey = (projectId: number) => `project-flags:${projectId}`

function conditionsOf(row: FeatureFlagRow): Condition[] {
  return (row.filters as { groups?: Condition[] }).groups ?? []
}

/** One condition, no properties anywhere, no group aggregation: a plain percentage rollout. */
function isSimple(row: FeatureFlagRow): boolean {
  const conditions = conditionsOf(row)
  return (
    conditions.length === 1 &&
    conditions.every((c) => (c.properties ?? []).length === 0) &&
    (row.filters as { aggregation_group_type_index?: number | null }).aggregation_group_type_index == null
  )
}

async function toFlags(deps: CoreDeps, rows: FeatureFlagRow[]): Promise<FeatureFlag[]> {
  const summary = await userSummaries(
    deps,
    rows.map((r) => r.created_by_id),
  )
  return rows.map((row) => {
    const simple = isSimple(row)
    return {
      id: row.id,
      key: row.key,
      name: row.name,
      filters: row.filters,
      active: row.active,
      deleted: row.deleted,
      ensure_experience_continuity: row.ensure_experience_continuity,
      is_remote_configuration: row.is_remote_configuration,
      created_by: summary(row.created_by_id),
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      version: row.version,
      is_simple_flag: simple,
      rollout_percentage: simple ? (conditionsOf(row)[0]?.rollout_percentage ?? null) : null,
    }
  })
}

/** Cohort conditions must name cohorts of the project that flags can evaluate, and the cohorts they name in turn too. */
async function checkCohorts(deps: CoreDeps, projectId: number, filters: FeatureFlagUpdate['filters']): Promise<void> {
  const named: number[] = []
  for (const condition of (filters?.groups ?? []) as Condition[]) {
    for (const property of condition.properties ?? []) {
      if (property.type !== 'cohort') continue
      const id = Number(property.value)
      const cohort = Number.isSafeInteger(id) ? await cohorts.findCohort(deps.sql, projectId, id) : undefined
      if (!cohort || cohort.deleted)
        throw problems.validation('filters', `Cohort with id ${String(property.value)} does not exist`, 'cohort_does_not_exist')
      named.push(id)
    }
  }
  if (named.length > 0) await refuseBehaviouralCohorts(deps.sql, projectId, named)
}

/** Drops every instance's cached flags of the project (their definitions or their cohorts changed). */
export async function flagsChanged(deps: CoreDeps, projectId: number): Promise<void> {
  try {
    await deps.cache.delete(flagDefinitionsCacheKey(projectId))
    await deps.cache.publishInvalidation(flagDefinitionsCacheKey(projectId))
  } catch (err) {
    deps.log(`could not invalidate cached flags of project ${projectId}: ${String(err)}`)
  }
}

const keyTaken = () => problems.validation('key', 'There is already a feature flag with this key.', 'unique')

export async function listFeatureFlags(
  deps: CoreDeps,
  projectId: number,
  query: PageQuery & { search?: string | undefined; active?: boolean | undefined },
): Promise<Page<FeatureFlag>> {
  const { count, rows } = await featureFlags.listFeatureFlags(deps.sql, projectId, { ...query, search: searchTerms(query.search) })
  return { count, limit: query.limit, offset: query.offset, results: await toFlags(deps, rows) }
}

export async function getFeatureFlag(deps: CoreDeps, projectId: number, idParam: string): Promise<FeatureFlag> {
  const row = await featureFlags.findFeatureFlag(deps.sql, projectId, serialIdOrNotFound(idParam))
  if (!row) throw problems.notFound()
  const [flag] = await toFlags(deps, [row])
  return flag!
}

/**
 * The payload of a remote configuration flag, found by id or key: its `"true"` payload, null
 * when it has none, undefined when there is no such flag or it is not a remote configuration.
 */
export async function remoteConfigPayload(deps: CoreDeps, projectId: number, idOrKey: string): Promise<unknown> {
  // Digits name the flag's id, as in PostHog (a key of digits alone is reached by its id only).
  const row = /^\d+$/.test(idOrKey)
    ? await findBySerialId(deps, projectId, idOrKey)
    : await featureFlags.findFeatureFlagByKey(deps.sql, projectId, idOrKey)
  if (!row || row.deleted || !row.is_remote_configuration) return undefined
  return (row.filters as { payloads?: Record<string, unknown> }).payloads?.true ?? null
}

async function findBySerialId(deps: CoreDeps, projectId: number, idParam: string) {
  const id = serialId(idParam)
  return id === null ? undefined : featureFlags.findFeatureFlag(deps.sql, projectId, id)
}

export async function createFeatureFlag(deps: CoreDeps, projectId: number, user: UserRow, input: FeatureFlagCreate): Promise<FeatureFlag> {
  await checkCohorts(deps, projectId, input.filters)
  await checkFlagDependencies(deps, projectId, input.key, input.filters)
  const row = await featureFlags.insertFeatureFlag(deps.sql, projectId, user.id, {
    ...input,
    filters: input.filters ?? { groups: [{ properties: [], rollout_percentage: 0 }] },
  })
  if (!row) throw keyTaken()
  await flagsChanged(deps, projectId)
  const [flag] = await toFlags(deps, [row])
  return flag!
}

/** Updates a flag (a new version); `deleted: true` is its soft deletion. Filters without `groups` leave the filters as they were. */
export async function updateFeatureFlag(
  deps: CoreDeps,
  projectId: number,
  idParam: string,
  input: FeatureFlagUpdate,
): Promise<FeatureFlag> {
  const filters = input.filters && 'groups' in input.filters ? input.filters : undefined
  await checkCohorts(deps, projectId, filters)
  if (filters) {
    const current = await featureFlags.findFeatureFlag(deps.sql, projectId, serialIdOrNotFound(idParam))
    if (current) await checkFlagDependencies(deps, projectId, current.key, filters)
  }
  const row = await featureFlags.updateFeatureFlag(deps.sql, projectId, serialIdOrNotFound(idParam), { ...input, filters })
  if (row === 'conflict') throw keyTaken()
  if (!row) throw problems.notFound()
  await flagsChanged(deps, projectId)
  const [flag] = await toFlags(deps, [row])
  return flag!
}

/**
 * The flag definitions an SDK evaluates locally, for the project of `token` (a project API key
 * the user can see) or else the project in the URL.
 */
export async function localEvaluation(
  deps: CoreDeps,
  user: Caller,
  projectId: number | undefined,
  token: string | undefined,
  options: { sendCohorts: boolean } = { sendCohorts: false },
): Promise<LocalEvaluation> {
  let id = projectId
  if (token) {
    const byToken = await projects.findProjectByToken(deps.sql, token)
    const visible = byToken && (await projects.findProjectForUser(deps.sql, byToken.id, user.id))
    if (!visible)
      throw problems.authenticationFailed('Project API key invalid. You can find your project API key in your project settings.')
    assertProjectInReach(user, byToken)
    id = byToken.id
  }
  if (id === undefined) {
    const current =
      user.current_project_id === null ? undefined : await projects.findProjectForUser(deps.sql, user.current_project_id, user.id)
    if (!current) throw problems.notFound('Project not found.')
    assertProjectInReach(user, current)
    id = current.id
  }
  const rows = await featureFlags.liveFeatureFlags(deps.sql, id)
  // Dynamic cohorts go with the flags; static ones do not, and SDKs ask the server for flags naming them.
  const { dynamic } = options.sendCohorts
    ? await cohortsOfFlags(
        deps.sql,
        id,
        rows.filter((r) => r.active).map((r) => ({ id: r.id, key: r.key, filters: r.filters })),
      )
    : { dynamic: {} }
  return {
    flags: rows.map((row) => ({
      ...minimalFlag(row),
      has_encrypted_payloads: false,
      version: row.version,
    })),
    group_type_mapping: Object.fromEntries(
      (await groupTypes.groupTypeMapping(deps.sql, id)).map((m) => [String(m.group_type_index), m.group_type]),
    ),
    cohorts: dynamic,
  }
}
