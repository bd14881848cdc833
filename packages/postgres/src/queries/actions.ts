import type { Sql } from '../connect'
import { everyTermIn, selectPage, type PageWindow } from './pages'

/** How a step's text, href or URL is compared: PostHog's ActionStepMatching. */
export type StepMatching = 'contains' | 'regex' | 'exact'

/** A step as stored: every field present, null where the step does not filter on it. */
export interface ActionStepRow {
  event: string | null
  properties: Array<Record<string, unknown>> | null
  selector: string | null
  tag_name: string | null
  text: string | null
  text_matching: StepMatching | null
  href: string | null
  href_matching: StepMatching | null
  url: string | null
  url_matching: StepMatching | null
}

export interface ActionRow {
  id: number
  project_id: number
  name: string | null
  description: string
  tags: string[]
  steps: ActionStepRow[]
  post_to_slack: boolean
  slack_message_format: string
  deleted: boolean
  pinned_at: Date | null
  created_by_id: number | null
  created_at: Date
  updated_at: Date
  last_calculated_at: Date
}

export interface ActionWrite {
  name?: string | null | undefined
  description?: string | undefined
  tags?: string[] | undefined
  steps?: ActionStepRow[] | undefined
  post_to_slack?: boolean | undefined
  slack_message_format?: string | undefined
  deleted?: boolean | undefined
  pinned_at?: Date | null | undefined
}

function columnValues(sql: Sql, write: ActionWrite): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  if (write.name !== undefined) values.name = write.name
  if (write.description !== undefined) values.description = write.description
  if (write.tags !== undefined) values.tags = sql.array(write.tags)
  if (write.steps !== undefined) values.steps = sql.json(write.steps as never)
  if (write.post_to_slack !== undefined) values.post_to_slack = write.post_to_slack
  if (write.slack_message_format !== undefined) values.slack_message_format = write.slack_message_format
  if (write.deleted !== undefined) values.deleted = write.deleted
  if (write.pinned_at !== undefined) values.pinned_at = write.pinned_at
  return values
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505'

/** A new action; 'conflict' when a live action of the project already has its name. */
export async function insertAction(
  sql: Sql,
  action: { projectId: number; userId: number; write: ActionWrite },
): Promise<ActionRow | 'conflict'> {
  const values = { ...columnValues(sql, action.write), project_id: action.projectId, created_by_id: action.userId }
  try {
    const [row] = await sql<ActionRow[]>`insert into actions ${sql(values as never)} returning *`
    return row!
  } catch (err) {
    if (isUniqueViolation(err)) return 'conflict'
    throw err
  }
}

/** Changes an action; undefined when the project has no such action, 'conflict' when the new name is a live action's. */
export async function updateAction(
  sql: Sql,
  action: { projectId: number; id: number; write: ActionWrite },
): Promise<ActionRow | undefined | 'conflict'> {
  const values = { ...columnValues(sql, action.write), updated_at: sql`now()` }
  try {
    const [row] = await sql<ActionRow[]>`
      update actions set ${sql(values as never)} where project_id = ${action.projectId} and id = ${action.id} returning *`
    return row
  } catch (err) {
    if (isUniqueViolation(err)) return 'conflict'
    throw err
  }
}

/**
 * A project's action by id with its steps, deleted or not (`deleted` says which): what the API
 * answers and what a query over the action's events reads.
 */
export async function getAction(sql: Sql, projectId: number, id: number): Promise<ActionRow | undefined> {
  const [row] = await sql<ActionRow[]>`select * from actions where project_id = ${projectId} and id = ${id}`
  return row
}

/** The id of a live action of the project with this name (null: an unnamed one), other than `except`. */
export async function findActionNamed(sql: Sql, projectId: number, name: string | null, except?: number): Promise<number | undefined> {
  const [row] = await sql<{ id: number }[]>`
    select id from actions where project_id = ${projectId} and not deleted and name is not distinct from ${name}
      and id <> ${except ?? 0} order by id limit 1`
  return row?.id
}

/**
 * The project's live actions in PostHog's order (the most recently calculated first, then by
 * name), those whose name or description contains every search term.
 */
export function listActions(
  sql: Sql,
  projectId: number,
  filter: { search: readonly string[] },
  page: PageWindow,
): Promise<{ count: number; rows: ActionRow[] }> {
  return selectPage<ActionRow>(sql, {
    table: 'actions',
    where: sql`project_id = ${projectId} and not deleted and ${everyTermIn(sql, ['name', 'description'], filter.search)}`,
    orderBy: sql`last_calculated_at desc, name, id`,
    page,
  })
}
