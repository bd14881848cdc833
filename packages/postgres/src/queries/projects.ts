import type { Sql } from '../connect'

export interface ProjectRow {
  id: number
  uuid: string
  organization_id: string
  api_token: string
  name: string
  app_urls: string[]
  chat_incoming_webhook: string | null
  anonymize_ips: boolean
  /** 0 off, 1 stateless, 2 stateful (PostHog's CookielessServerHashMode). */
  cookieless_server_hash_mode: number
  completed_snippet_onboarding: boolean
  ingested_event: boolean
  test_account_filters: unknown
  test_account_filters_default_checked: boolean
  path_cleaning_filters: unknown
  is_demo: boolean
  timezone: string
  /** 0 Sunday, 1 Monday; null is Sunday, PostHog's default. */
  week_start_day: number | null
  data_attributes: unknown
  person_display_name_properties: string[]
  correlation_config: unknown
  session_recording_opt_in: boolean
  capture_console_log_opt_in: boolean
  access_control: boolean
  primary_dashboard: number | null
  live_events_columns: string[] | null
  recording_domains: string[] | null
  created_at: Date
  updated_at: Date
  /** Whether events have registered group types; only findProjectForUser computes it. */
  has_group_types?: boolean
}

/** Whether the project `p` has group types, as a column of the API's queries. */
const HAS_GROUP_TYPES = 'exists (select 1 from group_type_mappings g where g.project_id = p.id) as has_group_types'

/** Columns a request may write; every other column is maintained by the service. */
export const PROJECT_WRITABLE_COLUMNS = [
  'app_urls',
  'name',
  'chat_incoming_webhook',
  'anonymize_ips',
  'cookieless_server_hash_mode',
  'completed_snippet_onboarding',
  'test_account_filters',
  'test_account_filters_default_checked',
  'path_cleaning_filters',
  'timezone',
  'week_start_day',
  'data_attributes',
  'person_display_name_properties',
  'correlation_config',
  'session_recording_opt_in',
  'capture_console_log_opt_in',
  'access_control',
  'primary_dashboard',
  'live_events_columns',
  'recording_domains',
] as const
export type ProjectWritableColumn = (typeof PROJECT_WRITABLE_COLUMNS)[number]
export type ProjectWrite = Partial<Record<ProjectWritableColumn, unknown>>

const JSON_COLUMNS = new Set<ProjectWritableColumn>([
  'app_urls',
  'test_account_filters',
  'path_cleaning_filters',
  'data_attributes',
  'person_display_name_properties',
  'correlation_config',
  'live_events_columns',
  'recording_domains',
])

/** The write as column values, with JSON columns wrapped so the driver sends jsonb. */
function columnValues(sql: Sql, write: ProjectWrite): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const column of PROJECT_WRITABLE_COLUMNS) {
    if (!(column in write) || write[column] === undefined) continue
    const value = write[column]
    values[column] = JSON_COLUMNS.has(column) && value !== null ? sql.json(value as never) : value
  }
  return values
}

export async function insertProject(
  sql: Sql,
  project: { uuid: string; organizationId: string; apiToken: string; name: string; write: ProjectWrite },
): Promise<ProjectRow> {
  const values: Record<string, unknown> = {
    name: project.name,
    ...columnValues(sql, project.write),
    uuid: project.uuid,
    organization_id: project.organizationId,
    api_token: project.apiToken,
  }
  const [row] = await sql<ProjectRow[]>`insert into projects ${sql(values as never)} returning *`
  return row!
}

export async function updateProject(sql: Sql, id: number, write: ProjectWrite): Promise<ProjectRow | undefined> {
  const values = columnValues(sql, write)
  if (Object.keys(values).length === 0) {
    const [row] = await sql<ProjectRow[]>`select * from projects where id = ${id}`
    return row
  }
  const [row] = await sql<ProjectRow[]>`
    update projects set ${sql({ ...values, updated_at: sql`now()` } as never)} where id = ${id} returning *`
  return row
}

export async function deleteProject(sql: Sql, id: number): Promise<boolean> {
  const rows = await sql`delete from projects where id = ${id} returning id`
  return rows.length > 0
}

/** A project together with the caller's membership level in its organization, if any. */
export async function findProjectForUser(
  sql: Sql,
  projectId: number,
  userId: number,
): Promise<(ProjectRow & { membership_level: number }) | undefined> {
  const [row] = await sql<(ProjectRow & { membership_level: number })[]>`
    select p.*, m.level as membership_level, ${sql.unsafe(HAS_GROUP_TYPES)}
    from projects p
    join organization_memberships m on m.organization_id = p.organization_id and m.user_id = ${userId}
    where p.id = ${projectId}`
  return row
}

export async function listProjectsForUser(
  sql: Sql,
  userId: number,
  page: { limit: number; offset: number },
  reach: { teams: number[] | null; organizations: string[] | null } = { teams: null, organizations: null },
): Promise<{ count: number; rows: (ProjectRow & { membership_level: number })[] }> {
  const inReach = sql`
    (${reach.teams}::int[] is null or p.id = any(${reach.teams}::int[]))
    and (${reach.organizations}::text[] is null or p.organization_id::text = any(${reach.organizations}::text[]))`
  const rows = await sql<(ProjectRow & { membership_level: number; total: number })[]>`
    select p.*, m.level as membership_level, count(*) over ()::int as total
    from projects p
    join organization_memberships m on m.organization_id = p.organization_id and m.user_id = ${userId}
    where ${inReach}
    order by p.id
    limit ${page.limit} offset ${page.offset}`
  if (rows[0]) return { count: rows[0].total, rows }
  const [counted] = await sql<{ n: number }[]>`
    select count(*)::int as n from projects p
    join organization_memberships m on m.organization_id = p.organization_id and m.user_id = ${userId}
    where ${inReach}`
  return { count: counted?.n ?? 0, rows }
}

export async function findProjectByToken(sql: Sql, token: string): Promise<ProjectRow | undefined> {
  const [row] = await sql<ProjectRow[]>`select * from projects where api_token = ${token}`
  return row
}

export async function findProjectById(sql: Sql, id: number): Promise<ProjectRow | undefined> {
  const [row] = await sql<ProjectRow[]>`select * from projects where id = ${id}`
  return row
}

/** Which of these project ids still exist. */
export async function existingProjectIds(sql: Sql, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set()
  const rows = await sql<{ id: number }[]>`select id from projects where id = any(${ids as number[]}::int[])`
  return new Set(rows.map((r) => r.id))
}

export async function markProjectsIngested(sql: Sql, ids: number[]) {
  if (ids.length === 0) return
  await sql`update projects set ingested_event = true where id = any(${ids}::int[]) and not ingested_event`
}

export async function projectsOfOrganization(sql: Sql, organizationId: string): Promise<ProjectRow[]> {
  return sql<ProjectRow[]>`select * from projects where organization_id = ${organizationId} order by id`
}
