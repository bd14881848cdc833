// An action's steps as the console's form holds them (text fields, blank for none) and as the
// actions API takes them (null for none), both ways.
import type { Action, ActionStep, ActionStepWrite } from '@burrow/contracts'
import { isNumeric, PERSON_OPERATORS, takesValue, type PersonOperator } from './personOperators'

export const STEP_MATCHINGS = [
  ['contains', 'contains'],
  ['exact', 'matches exactly'],
  ['regex', 'matches the pattern'],
] as const
export type StepMatching = (typeof STEP_MATCHINGS)[number][0]

/** An event-property filter of a step as the form draws it. */
export interface StepPropertyDraft {
  key: string
  operator: PersonOperator
  value: string
}

export interface StepDraft {
  event: string
  url: string
  urlMatching: StepMatching
  text: string
  textMatching: StepMatching
  href: string
  hrefMatching: StepMatching
  tagName: string
  properties: StepPropertyDraft[]
  /** Filters the form does not draw (another type than `event`, an unknown operator), kept as they are. */
  keptProperties: Record<string, unknown>[]
  /** A CSS selector of a step made elsewhere: not edited here, kept as it is. */
  selector: string | null
}

/** What the form starts from when a step is added: any page view. */
export const newStep = (): StepDraft => ({
  event: '$pageview',
  url: '',
  urlMatching: 'contains',
  text: '',
  textMatching: 'exact',
  href: '',
  hrefMatching: 'exact',
  tagName: '',
  properties: [],
  keptProperties: [],
  selector: null,
})

const operators: readonly string[] = PERSON_OPERATORS.map(([op]) => op)

function propertyDraftOf(filter: Record<string, unknown>): StepPropertyDraft | undefined {
  const operator = filter.operator ?? 'exact'
  if ((filter.type ?? 'event') !== 'event' || typeof filter.key !== 'string' || !operators.includes(operator as string)) return undefined
  const value = filter.value
  const one = Array.isArray(value) && value.length === 1 ? (value[0] as unknown) : value
  if (takesValue(operator as PersonOperator) && typeof one !== 'string' && typeof one !== 'number') return undefined
  return {
    key: filter.key,
    operator: operator as PersonOperator,
    value: takesValue(operator as PersonOperator) ? String(one) : '',
  }
}

/** A saved step in the form's terms; the matchings the API leaves null take PostHog's defaults. */
export function stepDraftOf(step: ActionStep): StepDraft {
  const filters = step.properties ?? []
  const drawn = filters.map((f) => [f, propertyDraftOf(f)] as const)
  return {
    event: step.event ?? '',
    url: step.url ?? '',
    urlMatching: step.url_matching ?? 'contains',
    text: step.text ?? '',
    textMatching: step.text_matching ?? 'exact',
    href: step.href ?? '',
    hrefMatching: step.href_matching ?? 'exact',
    tagName: step.tag_name ?? '',
    properties: drawn.flatMap(([, d]) => (d ? [d] : [])),
    keptProperties: drawn.flatMap(([f, d]) => (d ? [] : [f])),
    selector: step.selector,
  }
}

const orNull = (text: string): string | null => (text.trim() === '' ? null : text)

/** A step as the API takes it: a blank field filters on nothing, and its matching goes with it. */
export function stepWriteOf(step: StepDraft): ActionStepWrite {
  const properties = [
    ...step.properties
      .filter((p) => p.key.trim() !== '')
      .map((p) => ({
        key: p.key.trim(),
        operator: p.operator,
        type: 'event',
        ...(takesValue(p.operator) ? { value: isNumeric(p.operator) ? Number(p.value) : p.value } : {}),
      })),
    ...step.keptProperties,
  ]
  return {
    event: orNull(step.event.trim()),
    url: orNull(step.url.trim()),
    url_matching: step.url.trim() ? step.urlMatching : null,
    text: orNull(step.text),
    text_matching: step.text.trim() ? step.textMatching : null,
    href: orNull(step.href),
    href_matching: step.href.trim() ? step.hrefMatching : null,
    tag_name: orNull(step.tagName.trim()),
    selector: step.selector,
    properties: properties.length > 0 ? properties : null,
  }
}

const matchingWords: Record<StepMatching, string> = { contains: 'contains', exact: 'is', regex: 'matches' }

/** A step in a few words, as the list of actions shows it: `$pageview where URL contains /pricing`. */
export function stepSummary(step: ActionStep): string {
  const parts = [
    step.url && `URL ${matchingWords[step.url_matching ?? 'contains']} ${step.url}`,
    step.text && `text ${matchingWords[step.text_matching ?? 'exact']} “${step.text}”`,
    step.href && `link ${matchingWords[step.href_matching ?? 'exact']} ${step.href}`,
    step.tag_name && `<${step.tag_name}>`,
    step.selector && `selector ${step.selector}`,
    step.properties?.length && `${step.properties.length} ${step.properties.length === 1 ? 'property filter' : 'property filters'}`,
  ].filter(Boolean)
  const event = step.event ?? 'Any event'
  return parts.length > 0 ? `${event} where ${parts.join(', ')}` : event
}

/** The steps of an action as one line each: the list's column. */
export const stepsSummary = (action: Pick<Action, 'steps'>): string[] => action.steps.map(stepSummary)
