import { randomUUID } from 'node:crypto'
import {
  featureFlagCreateSchema,
  problems,
  type EarlyAccessFeature,
  type EarlyAccessFeatureCreate,
  type EarlyAccessFeatureUpdate,
  type Page,
  type PageQuery,
  type PublicEarlyAccessFeature,
} from '@burrow/contracts'
import { earlyAccessFeatures, featureFlags, type EarlyAccessFeatureRow, type FeatureFlagRow, type UserRow } from '@burrow/postgres'
import type { CoreDeps } from '../deps'
import { createFeatureFlag, flagsChanged, minimalFlag } from './featureFlags'
import { isUuid } from '../ids'

/** The stage whose users may enrol themselves, and which posthog-js is shown by default. */
const ENROLMENT_STAGE = 'beta'

/**
 * The condition that turns the flag on for a user who enrolled (posthog-js sets the person
 * property `$feature_enrollment/<flag key>` when they opt in), evaluated before the flag's own.
 */
const enrolmentCondition = (flagKey: string) => [
  {
    properties: [{ key: `$feature_enrollment/${flagKey}`, type: 'person', operator: 'exact', value: ['true'] }],
    rollout_percentage: 100,
  },
]

/** Django's slugify, which PostHog names a feature's flag with: ASCII word characters joined by hyphens. */
function slugify(text: string): string {
  const ascii = text.normalize('NFKD').replace(/[^ -~\t\n\r]/g, '')
  return ascii
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/[-\s]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
}

async function toFeature(deps: CoreDeps, row: EarlyAccessFeatureRow): Promise<EarlyAccessFeature> {
  const flag = row.feature_flag_id === null ? undefined : await featureFlags.findFeatureFlag(deps.sql, row.project_id, row.feature_flag_id)
  return {
    id: row.id,
    feature_flag: flag ? minimalFlag(flag) : null,
    name: row.name,
    description: row.description,
    stage: row.stage as EarlyAccessFeature['stage'],
    documentation_url: row.documentation_url,
    payload: row.payload,
    created_at: row.created_at.toISOString(),
  }
}

async function findFeature(deps: CoreDeps, projectId: number, id: string): Promise<EarlyAccessFeatureRow> {
  const row = isUuid(id) ? await earlyAccessFeatures.findEarlyAccessFeature(deps.sql, projectId, id) : undefined
  if (!row) throw problems.notFound()
  return row
}

/** Sets or clears the flag's enrolment condition (`super_groups`), a new version of the flag. */
async function setEnrolment(deps: CoreDeps, projectId: number, flag: FeatureFlagRow, enrolled: boolean): Promise<void> {
  const filters = { ...flag.filters, super_groups: enrolled ? enrolmentCondition(flag.key) : null }
  await featureFlags.updateFeatureFlag(deps.sql, projectId, flag.id, { filters })
  await flagsChanged(deps, projectId)
}

export async function listEarlyAccessFeatures(deps: CoreDeps, projectId: number, page: PageQuery): Promise<Page<EarlyAccessFeature>> {
  const { count, rows } = await earlyAccessFeatures.listEarlyAccessFeatures(deps.sql, projectId, page)
  const results: EarlyAccessFeature[] = []
  for (const row of rows) results.push(await toFeature(deps, row))
  return { count, limit: page.limit, offset: page.offset, results }
}

export async function getEarlyAccessFeature(deps: CoreDeps, projectId: number, id: string): Promise<EarlyAccessFeature> {
  return toFeature(deps, await findFeature(deps, projectId, id))
}

/** The flag a new feature is to use, checked as PostHog checks it. */
async function existingFlag(deps: CoreDeps, projectId: number, flagId: number): Promise<FeatureFlagRow> {
  const flag = await featureFlags.findFeatureFlag(deps.sql, projectId, flagId)
  const fail = (detail: string) => problems.validation(null, detail, 'invalid_input')
  if (!flag || flag.deleted) throw fail('Feature Flag with this ID does not exist')
  if (await earlyAccessFeatures.flagHasFeature(deps.sql, flag.id))
    throw fail(`Linked feature flag ${flag.key} already has a feature attached to it.`)
  const filters = flag.filters as { aggregation_group_type_index?: number | null; multivariate?: { variants?: unknown[] } | null }
  if (filters.aggregation_group_type_index != null) throw fail('Group-based feature flags are not supported for Early Access Features.')
  if ((filters.multivariate?.variants?.length ?? 0) > 0)
    throw fail('Multivariate feature flags are not supported for Early Access Features.')
  return flag
}

/**
 * Creates a feature with its flag: a new flag keyed by the feature's name (off for everyone but
 * those who enrol), or the given flag. In the `beta` stage the flag gets the enrolment condition.
 */
export async function createEarlyAccessFeature(
  deps: CoreDeps,
  projectId: number,
  user: UserRow,
  input: EarlyAccessFeatureCreate,
): Promise<EarlyAccessFeature> {
  const enrolled = input.stage === ENROLMENT_STAGE
  let flagId: number
  if (input.feature_flag_id !== undefined) {
    const flag = await existingFlag(deps, projectId, input.feature_flag_id)
    if (enrolled) await setEnrolment(deps, projectId, flag, true)
    flagId = flag.id
  } else {
    const key = slugify(input.name)
    const flagInput = featureFlagCreateSchema.safeParse({
      key,
      name: `Feature Flag for Feature ${input.name}`,
      filters: {
        groups: [{ properties: [], rollout_percentage: 0, variant: null }],
        ...(enrolled ? { super_groups: enrolmentCondition(key) } : {}),
      },
    })
    if (!flagInput.success)
      throw problems.validation('key', 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.', 'invalid_input')
    flagId = (await createFeatureFlag(deps, projectId, user, flagInput.data)).id
  }
  const row = await earlyAccessFeatures.insertEarlyAccessFeature(deps.sql, projectId, {
    id: randomUUID(),
    feature_flag_id: flagId,
    name: input.name,
    description: input.description ?? '',
    stage: input.stage,
    documentation_url: input.documentation_url ?? '',
    payload: input.payload ?? {},
  })
  return toFeature(deps, row)
}

/** Updates a feature; moving into `beta` gives its flag the enrolment condition, moving out of it takes it away. */
export async function updateEarlyAccessFeature(
  deps: CoreDeps,
  projectId: number,
  id: string,
  input: EarlyAccessFeatureUpdate,
): Promise<EarlyAccessFeature> {
  const before = await findFeature(deps, projectId, id)
  if (input.stage !== undefined && (input.stage === ENROLMENT_STAGE) !== (before.stage === ENROLMENT_STAGE)) {
    const flag =
      before.feature_flag_id === null ? undefined : await featureFlags.findFeatureFlag(deps.sql, projectId, before.feature_flag_id)
    if (flag) await setEnrolment(deps, projectId, flag, input.stage === ENROLMENT_STAGE)
  }
  const row = await earlyAccessFeatures.updateEarlyAccessFeature(deps.sql, projectId, id, input)
  if (!row) throw problems.notFound()
  return toFeature(deps, row)
}

/** Deletes a feature; its flag stays, without the enrolment condition. */
export async function deleteEarlyAccessFeature(deps: CoreDeps, projectId: number, id: string): Promise<void> {
  const row = await findFeature(deps, projectId, id)
  const flag = row.feature_flag_id === null ? undefined : await featureFlags.findFeatureFlag(deps.sql, projectId, row.feature_flag_id)
  if (flag) await setEnrolment(deps, projectId, flag, false)
  if (!(await earlyAccessFeatures.deleteEarlyAccessFeature(deps.sql, projectId, id))) throw problems.notFound()
}

/** What posthog-js's getEarlyAccessFeatures shows: the project's features in `beta`, or in the stages it asks for (`stage=`). */
export async function publicEarlyAccessFeatures(
  deps: CoreDeps,
  projectId: number,
  stages: readonly string[] = [],
): Promise<PublicEarlyAccessFeature[]> {
  const rows = await earlyAccessFeatures.publicEarlyAccessFeatures(deps.sql, projectId, stages.length > 0 ? stages : [ENROLMENT_STAGE])
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    stage: row.stage as PublicEarlyAccessFeature['stage'],
    documentationUrl: row.documentation_url,
    payload: row.payload,
    flagKey: row.flag_key,
  }))
}
