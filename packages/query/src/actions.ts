import { eventPropertiesSql, type PropertyExpression, type SqlParams } from '@burrow/clickhouse'
import { problems, type ActionStep as StoredActionStep } from '@burrow/contracts'
import type { QueryContext } from './context'
import { TEAM } from './sql'

/** A step ready to print: its property filters parsed. */
interface ActionStep extends Omit<StoredActionStep, 'properties'> {
  properties: PropertyExpression | undefined
}

/** The events of one action: those matching any of its steps. */
export interface ActionSelection {
  id: number
  name: string
  steps: ActionStep[]
}

/**
 * The action a series or step names, its steps' filters parsed. An action that is not the
 * project's, is deleted, or has a step on a CSS selector (not matched here) is a 400 naming `attr`.
 */
export async function actionSelectionOf(ctx: QueryContext, id: number | null | undefined, attr: string): Promise<ActionSelection> {
  if (id === null || id === undefined) throw problems.validation(`query__${attr}__id`, 'An ActionsNode names its action: id.')
  const [action] = ctx.actions ? await ctx.actions([id]) : []
  if (!action) throw problems.validation(`query__${attr}__id`, `Action ${id} does not exist in this project.`)
  const steps = await Promise.all(
    action.steps.map(async (step, i) => {
      if (step.selector) {
        throw problems.validation(
          `query__${attr}__id`,
          `Step ${i + 1} of action ${id} matches a CSS selector, which is not supported: match on the event, URL, text, href, tag or properties.`,
        )
      }
      return { ...step, properties: await ctx.properties(step.properties ?? [], `query__${attr}__id`) }
    }),
  )
  return { id: action.id, name: action.name, steps }
}

/** An element attribute's values in the events' `elements_chain` (PostHog's `attr="value"` pairs). */
const chainValues = (attribute: 'href' | 'text') => `extractAll(elements_chain, '(?::|")${attribute}="(.*?)"')`
/** The elements' tag names: each element of the chain starts with its tag. */
const CHAIN_TAGS = `extractAll(elements_chain, '(?:^|;)([a-zA-Z][a-zA-Z0-9-]*)')`

function matchesSql(value: string, text: string, matching: StoredActionStep['url_matching'], params: SqlParams): string {
  const p = params.add('String', text)
  if (matching === 'exact') return `${value} = ${p}`
  if (matching === 'regex') return `match(${value}, ${p})`
  return `position(${value}, ${p}) > 0`
}

function anyMatchesSql(values: string, text: string, matching: StoredActionStep['url_matching'], params: SqlParams): string {
  return `arrayExists(v -> ${matchesSql('v', text, matching, params)}, ${values})`
}

/**
 * Whether an event of the events table (columns unqualified) matches one of the action's steps:
 * each step's event, its URL against `$current_url` (PostHog's: contains by default, exact or
 * regex), its href, text and tag among the event's elements, and its property filters.
 */
export function actionConditionSql(action: ActionSelection, params: SqlParams, columns: ReadonlyMap<string, string>): string {
  if (action.steps.length === 0) return '0'
  const url = columns.has('$current_url')
    ? `ifNull(\`${columns.get('$current_url')}\`, '')`
    : `JSONExtractString(properties, '$current_url')`
  const steps = action.steps.map((step) => {
    const parts: string[] = []
    if (step.event) parts.push(`event = ${params.add('String', step.event)}`)
    if (step.url) {
      // PostHog's `contains` is a LIKE of the URL between wildcards.
      parts.push(
        (step.url_matching ?? 'contains') === 'contains'
          ? `${url} LIKE ${params.add('String', `%${step.url}%`)}`
          : matchesSql(url, step.url, step.url_matching, params),
      )
    }
    if (step.href) parts.push(anyMatchesSql(chainValues('href'), step.href, step.href_matching ?? 'exact', params))
    if (step.text) parts.push(anyMatchesSql(chainValues('text'), step.text, step.text_matching ?? 'exact', params))
    if (step.tag_name) parts.push(`has(${CHAIN_TAGS}, ${params.add('String', step.tag_name)})`)
    if (step.properties) parts.push(eventPropertiesSql(step.properties, TEAM, params, columns))
    return parts.length ? `(${parts.join(' AND ')})` : '1'
  })
  return steps.length === 1 ? steps[0]! : `(${steps.join(' OR ')})`
}
