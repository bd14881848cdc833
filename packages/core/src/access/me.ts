import { events as eventsTable } from '@burrow/clickhouse'
import type { Me } from '@burrow/contracts'
import { consoleSessions, eventDefinitions, organizations, projects, type UserRow } from '@burrow/postgres'
import type { CoreDeps } from '../deps'
import { SERVICE_VERSION } from '../version'

/** The current user with their organizations and current project, as `/api/users/@me/` shows them. */
export async function describeMe(deps: CoreDeps, user: UserRow): Promise<Me> {
  const [memberships, project, hasPassword] = await Promise.all([
    organizations.organizationsOfUser(deps.sql, user.id),
    user.current_project_id === null ? undefined : projects.findProjectById(deps.sql, user.current_project_id),
    consoleSessions.hasPassword(deps.sql, user.id),
  ])
  const current = memberships.find((m) => m.id === user.current_organization_id) ?? memberships[0]
  const [teams, eventNames, propertyKeys] = await Promise.all([
    current ? projects.projectsOfOrganization(deps.sql, current.id) : [],
    project ? eventDefinitions.eventNames(deps.sql, project.id) : [],
    project ? eventsTable.recentPropertyKeys(deps.ch, project.id) : [],
  ])
  return {
    id: user.id,
    uuid: user.uuid,
    distinct_id: user.distinct_id,
    first_name: user.first_name,
    last_name: user.last_name,
    email: user.email,
    date_joined: user.created_at.toISOString(),
    is_staff: false,
    // Whether they can sign in to the console.
    has_password: hasPassword,
    anonymize_data: false,
    toolbar_mode: 'toolbar',
    team: project
      ? {
          id: project.id,
          uuid: project.uuid,
          organization: project.organization_id,
          name: project.name,
          api_token: project.api_token,
          app_urls: project.app_urls,
          timezone: project.timezone,
          completed_snippet_onboarding: project.completed_snippet_onboarding,
          ingested_event: project.ingested_event,
          is_demo: project.is_demo,
          anonymize_ips: project.anonymize_ips,
          event_names: eventNames,
          event_properties: propertyKeys.map((p) => p.key),
          event_properties_numerical: propertyKeys.filter((p) => p.numerical).map((p) => p.key),
        }
      : null,
    organization: current
      ? {
          id: current.id,
          name: current.name,
          created_at: current.created_at.toISOString(),
          membership_level: current.level,
          teams: teams.map((t) => ({ id: t.id, uuid: t.uuid, name: t.name, api_token: t.api_token })),
        }
      : null,
    organizations: memberships.map((m) => ({ id: m.id, name: m.name, membership_level: m.level })),
    posthog_version: SERVICE_VERSION,
  }
}
