import { problems, type ApiProblem, type Action, type ActionWrite, type Page, type PageQuery } from '@burrow/contracts'
import { actions, type ActionRow, type ActionStepRow, type UserRow } from '@burrow/postgres'
import type { CoreDeps } from '../deps'
import { serialIdOrNotFound } from '../ids'
import { searchTerms } from '../search'
import { userSummaries } from '../access/users'

type StepWrite = NonNullable<ActionWrite['steps']>[number]

/** A step with every field, as PostHog stores one: null where not given, URLs compared by `contains` unless told. */
function toStepRow(step: StepWrite): ActionStepRow {
  return {
    event: step.event ?? null,
    properties: step.properties ?? null,
    selector: step.selector ?? null,
    tag_name: step.tag_name ?? null,
    text: step.text ?? null,
    text_matching: step.text_matching ?? null,
    href: step.href ?? null,
    href_matching: step.href_matching ?? null,
    url: step.url ?? null,
    // Only a step that leaves it out gets the default: an explicit null stays null, as in PostHog.
    url_matching: step.url_matching === undefined ? 'contains' : step.url_matching,
  }
}

/** The columns a write sets, `pinned_at` aside (its time depends on the action it pins). */
function rowWrite(input: ActionWrite): actions.ActionWrite {
  return {
    name: input.name,
    description: input.description,
    tags: input.tags,
    steps: input.steps?.map(toStepRow),
    post_to_slack: input.post_to_slack,
    slack_message_format: input.slack_message_format,
    deleted: input.deleted,
  }
}

async function toActions(deps: CoreDeps, rows: ActionRow[], user: UserRow): Promise<Action[]> {
  const summary = await userSummaries(
    deps,
    rows.map((r) => r.created_by_id),
  )
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    tags: row.tags,
    post_to_slack: row.post_to_slack,
    slack_message_format: row.slack_message_format,
    steps: row.steps,
    created_at: row.created_at.toISOString(),
    created_by: summary(row.created_by_id),
    deleted: row.deleted,
    is_calculating: false,
    last_calculated_at: row.last_calculated_at.toISOString(),
    team_id: row.project_id,
    is_action: true,
    bytecode_error: null,
    pinned_at: row.pinned_at?.toISOString() ?? null,
    creation_context: null,
    // As PostHog's access control answers without roles: its creator manages it, the rest of the project edits it.
    user_access_level: row.created_by_id === user.id ? 'manager' : 'editor',
  }))
}

async function toAction(deps: CoreDeps, row: ActionRow, user: UserRow): Promise<Action> {
  const [action] = await toActions(deps, [row], user)
  return action!
}

/** PostHog's answer to a name a live action of the project already has. */
function nameTaken(id: number | undefined): ApiProblem {
  return problems.validation('name', `This project already has an action with this name, ID ${id ?? 'unknown'}`, 'unique')
}

/** A deleted action is still found (PostHog hides it from the list only), so a PATCH can bring it back. */
async function findAction(deps: CoreDeps, projectId: number, idParam: string): Promise<ActionRow> {
  const row = await actions.getAction(deps.sql, projectId, serialIdOrNotFound(idParam))
  if (!row) throw problems.notFound()
  return row
}

export async function listActions(
  deps: CoreDeps,
  projectId: number,
  user: UserRow,
  query: PageQuery & { search?: string | undefined },
): Promise<Page<Action>> {
  const page = { limit: query.limit, offset: query.offset }
  const { count, rows } = await actions.listActions(deps.sql, projectId, { search: searchTerms(query.search) }, page)
  return { count, ...page, results: await toActions(deps, rows, user) }
}

export async function getAction(deps: CoreDeps, projectId: number, user: UserRow, idParam: string): Promise<Action> {
  return toAction(deps, await findAction(deps, projectId, idParam), user)
}

/**
 * Creates an action. As in PostHog, a name given (null included) must not be a live action's of
 * the project; the time a new action is pinned at is the one sent.
 */
export async function createAction(deps: CoreDeps, projectId: number, user: UserRow, input: ActionWrite): Promise<Action> {
  if (input.name !== undefined) {
    const taken = await actions.findActionNamed(deps.sql, projectId, input.name)
    if (taken !== undefined) throw nameTaken(taken)
  }
  const write = { ...rowWrite(input), pinned_at: input.pinned_at }
  const row = await actions.insertAction(deps.sql, { projectId, userId: user.id, write })
  if (row === 'conflict') throw nameTaken(await actions.findActionNamed(deps.sql, projectId, input.name ?? null))
  return toAction(deps, row, user)
}

/**
 * Updates an action; `steps` replaces them all, `deleted: true` is its (soft) deletion and
 * `deleted: false` brings it back. A time in `pinned_at` pins an unpinned action at the time of
 * the request (PostHog ignores the time sent) and leaves a pinned one as it was; null unpins it.
 */
export async function updateAction(deps: CoreDeps, projectId: number, user: UserRow, idParam: string, input: ActionWrite): Promise<Action> {
  const before = await findAction(deps, projectId, idParam)
  if (input.name !== undefined) {
    const taken = await actions.findActionNamed(deps.sql, projectId, input.name, before.id)
    if (taken !== undefined) throw nameTaken(taken)
  }
  const pinnedAt =
    input.pinned_at === undefined || (input.pinned_at !== null && before.pinned_at !== null) ? undefined : input.pinned_at && new Date()
  const row = await actions.updateAction(deps.sql, { projectId, id: before.id, write: { ...rowWrite(input), pinned_at: pinnedAt } })
  // Bringing an action back whose name a live one took since: refused, as a new action of that name would be.
  if (row === 'conflict') throw nameTaken(await actions.findActionNamed(deps.sql, projectId, input.name ?? before.name, before.id))
  if (!row) throw problems.notFound()
  return toAction(deps, row, user)
}
