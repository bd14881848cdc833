import { events as eventsTable } from '@burrow/clickhouse'
import { problems, type EventDefinition, type EventDefinitionUpdate, type Page, type PageQuery } from '@burrow/contracts'
import { eventDefinitions, organizations, projects, type EventDefinitionRow, type UserRow } from '@burrow/postgres'
import type { CoreDeps } from '../deps'
import { searchTerms } from '../search'
import { userSummaries } from '../access/users'
import { isUuid } from '../ids'

/** Definitions with their volumes and last sighting computed from the stored events. */
async function toDefinitions(deps: CoreDeps, projectId: number, rows: EventDefinitionRow[]): Promise<EventDefinition[]> {
  const [summary, volumes] = await Promise.all([
    userSummaries(
      deps,
      rows.flatMap((r) => [r.updated_by_id, r.verified_by_id]),
    ),
    eventsTable.eventVolumes(
      deps.ch,
      projectId,
      rows.map((r) => r.name),
    ),
  ])
  const calculatedAt = new Date().toISOString()
  return rows.map((row) => {
    const volume = volumes.get(row.name)
    return {
      id: row.id,
      name: row.name,
      owner: row.owner_id,
      description: row.description,
      tags: row.tags,
      volume_30_day: volume?.volume30Day ?? 0,
      query_usage_30_day: null,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
      updated_by: summary(row.updated_by_id),
      last_seen_at: volume?.lastSeenAt ?? row.last_seen_at?.toISOString() ?? null,
      last_updated_at: row.updated_at.toISOString(),
      verified: row.verified,
      verified_at: row.verified_at?.toISOString() ?? null,
      verified_by: summary(row.verified_by_id),
      is_action: false,
      action_id: null,
      is_calculating: false,
      last_calculated_at: calculatedAt,
      // Definitions are created by ingestion, never by a user.
      created_by: null,
      post_to_chat: row.post_to_chat,
    }
  })
}

async function findDefinition(deps: CoreDeps, projectId: number, id: string): Promise<EventDefinitionRow> {
  const row = isUuid(id) ? await eventDefinitions.findEventDefinition(deps.sql, projectId, id) : undefined
  if (!row) throw problems.notFound()
  return row
}

export async function listEventDefinitions(
  deps: CoreDeps,
  projectId: number,
  query: PageQuery & { search?: string | undefined },
): Promise<Page<EventDefinition>> {
  const { count, rows } = await eventDefinitions.listEventDefinitions(deps.sql, projectId, { ...query, search: searchTerms(query.search) })
  return { count, limit: query.limit, offset: query.offset, results: await toDefinitions(deps, projectId, rows) }
}

export async function getEventDefinition(deps: CoreDeps, projectId: number, id: string): Promise<EventDefinition> {
  const [definition] = await toDefinitions(deps, projectId, [await findDefinition(deps, projectId, id)])
  return definition!
}

/** Updates the editable metadata; the name is the event's and never changes. */
export async function updateEventDefinition(
  deps: CoreDeps,
  projectId: number,
  user: UserRow,
  id: string,
  input: EventDefinitionUpdate,
): Promise<EventDefinition> {
  await findDefinition(deps, projectId, id)
  if (input.owner !== undefined && input.owner !== null) {
    const project = await projects.findProjectById(deps.sql, projectId)
    const level = project && (await organizations.membershipLevel(deps.sql, project.organization_id, input.owner))
    if (level === undefined) throw problems.validation('owner', `Invalid pk "${input.owner}" - object does not exist.`, 'does_not_exist')
  }
  const row = await eventDefinitions.updateEventDefinition(deps.sql, projectId, id, user.id, {
    owner_id: input.owner,
    description: input.description,
    tags: input.tags,
    post_to_chat: input.post_to_chat,
    verified: input.verified === undefined ? undefined : input.verified ? { by: user.id } : false,
  })
  if (!row) throw problems.notFound()
  const [definition] = await toDefinitions(deps, projectId, [row])
  return definition!
}
