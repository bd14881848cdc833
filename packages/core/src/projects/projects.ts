import { randomUUID } from 'node:crypto'
import { deleteTeamData } from '@burrow/clickhouse'
import {
  problems,
  type Page,
  type PageQuery,
  type Project,
  type ProjectCreate,
  type ProjectListItem,
  type ProjectUpdate,
} from '@burrow/contracts'
import { dashboards, organizations, projects, users, type ProjectRow } from '@burrow/postgres'
import { MEMBERSHIP_LEVEL } from '../access/accounts'
import type { CoreDeps } from '../deps'
import { generateProjectToken } from '../access/keys'
import { flagsChanged } from '../flags/featureFlags'
import { invalidateProjectToken } from './projectTokens'
import { serialId } from '../ids'
import { assertOrganizationInReach, assertProjectInReach, reachOf, type Caller } from '../access/access'

/** A project the caller may use, with their membership level in its organization. */
export interface AccessibleProject {
  row: ProjectRow
  membershipLevel: number
}

/**
 * The project named by a URL segment (`123` or `@current`) if the user belongs to its
 * organization. Any other case is 404, so that another organization's ids reveal nothing.
 */
export async function findAccessibleProject(deps: CoreDeps, user: Caller, idParam: string): Promise<AccessibleProject> {
  const id = idParam === '@current' ? user.current_project_id : serialId(idParam)
  if (id === null) throw problems.notFound('Project not found.')
  const row = await projects.findProjectForUser(deps.sql, id, user.id)
  if (!row) throw problems.notFound('Project not found.')
  // A member's key limited to other projects or organizations is refused (403), as PostHog refuses it.
  assertProjectInReach(user, row)
  const { membership_level, ...project } = row
  return { row: project, membershipLevel: membership_level }
}

export function toProject(row: ProjectRow, membershipLevel: number | null): Project {
  return {
    id: row.id,
    uuid: row.uuid,
    organization: row.organization_id,
    api_token: row.api_token,
    app_urls: row.app_urls,
    name: row.name,
    chat_incoming_webhook: row.chat_incoming_webhook,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    anonymize_ips: row.anonymize_ips,
    cookieless_server_hash_mode: row.cookieless_server_hash_mode,
    completed_snippet_onboarding: row.completed_snippet_onboarding,
    ingested_event: row.ingested_event,
    test_account_filters: row.test_account_filters as Project['test_account_filters'],
    test_account_filters_default_checked: row.test_account_filters_default_checked,
    path_cleaning_filters: row.path_cleaning_filters as Project['path_cleaning_filters'],
    is_demo: row.is_demo,
    timezone: row.timezone,
    week_start_day: row.week_start_day,
    data_attributes: row.data_attributes as Project['data_attributes'],
    person_display_name_properties: row.person_display_name_properties,
    correlation_config: row.correlation_config as Project['correlation_config'],
    session_recording_opt_in: row.session_recording_opt_in,
    capture_console_log_opt_in: row.capture_console_log_opt_in,
    effective_membership_level: membershipLevel,
    access_control: row.access_control,
    has_group_types: row.has_group_types ?? false,
    primary_dashboard: row.primary_dashboard,
    live_events_columns: row.live_events_columns,
    recording_domains: row.recording_domains,
  }
}

/** The projects of the user's organizations that their key reaches. */
export async function listProjects(deps: CoreDeps, user: Caller, page: PageQuery): Promise<Page<ProjectListItem>> {
  const { count, rows } = await projects.listProjectsForUser(deps.sql, user.id, page, reachOf(user))
  return { count, ...page, results: rows.map(({ membership_level, ...row }) => toProject(row, membership_level)) }
}

export async function getProject(deps: CoreDeps, user: Caller, idParam: string): Promise<Project> {
  const { row, membershipLevel } = await findAccessibleProject(deps, user, idParam)
  return toProject(row, membershipLevel)
}

/** A primary dashboard must be a live dashboard of the project (a new project has none yet). */
async function refuseMissingDashboard(deps: CoreDeps, projectId: number | undefined, input: ProjectUpdate): Promise<void> {
  if (input.primary_dashboard == null) return
  const dashboard = projectId === undefined ? undefined : await dashboards.findDashboard(deps.sql, projectId, input.primary_dashboard)
  if (!dashboard || dashboard.deleted) {
    throw problems.validation('primary_dashboard', `Invalid pk "${input.primary_dashboard}" - object does not exist.`, 'does_not_exist')
  }
}

/**
 * Creates a project in the user's current organization, which only its admins may do; it becomes
 * the user's current project, as in PostHog.
 */
export async function createProject(deps: CoreDeps, user: Caller, input: ProjectCreate): Promise<Project> {
  await refuseMissingDashboard(deps, undefined, input)
  const organizationId = user.current_organization_id
  if (!organizationId) throw problems.notFound('Organization not found.')
  assertOrganizationInReach(user, organizationId)
  const level = await organizations.membershipLevel(deps.sql, organizationId, user.id)
  if (level === undefined) throw problems.notFound('Organization not found.')
  if (level < MEMBERSHIP_LEVEL.admin) throw problems.permissionDenied('Your organization access level is insufficient.')
  const row = await deps.sql.begin(async (tx) => {
    const created = await projects.insertProject(tx, {
      uuid: randomUUID(),
      organizationId,
      apiToken: generateProjectToken(),
      name: 'Default project',
      write: input,
    })
    await users.setCurrentProject(tx, user.id, created.id)
    return created
  })
  return toProject(row, level)
}

export async function updateProject(deps: CoreDeps, user: Caller, idParam: string, input: ProjectUpdate): Promise<Project> {
  const { row, membershipLevel } = await findAccessibleProject(deps, user, idParam)
  await refuseMissingDashboard(deps, row.id, input)
  const updated = await projects.updateProject(deps.sql, row.id, input)
  if (!updated) throw problems.notFound('Project not found.')
  await invalidateProjectToken(deps, row.api_token)
  // Flags read dates without an offset in the project's timezone.
  if (updated.timezone !== row.timezone) await flagsChanged(deps, row.id)
  return toProject({ ...updated, has_group_types: row.has_group_types }, membershipLevel)
}

/** Deletes the project, its configuration, its events and everything else stored of it; admins only. */
export async function deleteProject(deps: CoreDeps, user: Caller, idParam: string): Promise<void> {
  const { row, membershipLevel } = await findAccessibleProject(deps, user, idParam)
  if (membershipLevel < MEMBERSHIP_LEVEL.admin) {
    throw problems.permissionDenied('Your organization access level is insufficient.')
  }
  await projects.deleteProject(deps.sql, row.id)
  await invalidateProjectToken(deps, row.api_token)
  await deleteTeamData(deps.ch, row.id)
}
