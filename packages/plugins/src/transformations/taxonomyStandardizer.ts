import type { PluginEvent, Transformation } from './event'

export const NAMING_CONVENTIONS = ['camelCase', 'PascalCase', 'snake_case', 'kebab-case', 'spaces in between'] as const
type NamingConvention = (typeof NAMING_CONVENTIONS)[number]

/** Survey events keep their names: PostHog's survey views look for them by name. */
const SKIPPED_EVENTS = new Set(['survey shown', 'survey sent', 'survey dismissed'])

/**
 * How PostHog's plugin recognises the convention a name is written in, tried in this order: a
 * capital letter (camelCase, then PascalCase), then a separator followed by a lower-case letter.
 * It does not split a name into words; it rewrites the marks of the first convention it finds,
 * other than the one wanted, and leaves everything else as it is. Names come out exactly as
 * PostHog's would (including its known oddities, such as "User Logged In" in camelCase becoming
 * "user Logged In"), so that a project moved from PostHog keeps the event names its insights use.
 */
const RECOGNISED: ReadonlyArray<{ convention: NamingConvention; marks: RegExp }> = [
  { convention: 'camelCase', marks: /[A-Z]/g },
  { convention: 'PascalCase', marks: /[A-Z]/g },
  { convention: 'snake_case', marks: /_[a-z]/g },
  { convention: 'kebab-case', marks: /-[a-z]/g },
  { convention: 'spaces in between', marks: /\s[a-z]/g },
]

const SEPARATORS: Partial<Record<NamingConvention, string>> = { snake_case: '_', 'kebab-case': '-', 'spaces in between': ' ' }

/** Each mark becomes its letter in capitals (camelCase, PascalCase) or the separator and its letter in lower case. */
function rewrite(name: string, marks: RegExp, wanted: NamingConvention): string {
  const letterOf = (mark: string) => mark.charAt(mark.length - 1)
  const separator = SEPARATORS[wanted]
  if (separator === undefined) {
    const first = wanted === 'PascalCase' ? name.charAt(0).toUpperCase() : name.charAt(0).toLowerCase()
    return first + name.slice(1).replace(marks, (mark) => letterOf(mark).toUpperCase())
  }
  const rewritten = name.replace(marks, (mark) => separator + letterOf(mark).toLowerCase())
  // A name that began with a mark (PascalCase) does not begin with the separator.
  return rewritten.startsWith(separator) ? rewritten.slice(separator.length) : rewritten
}

/** The name in the convention, as PostHog's Taxonomy plugin writes it; a name in no other convention stays. */
export function toConvention(name: string, convention: NamingConvention): string {
  const found = RECOGNISED.find((r) => r.convention !== convention && name.search(r.marks) >= 0)
  return found ? rewrite(name, found.marks, convention) : name
}

/** Names whose conversion a config keeps. */
const KNOWN_NAMES = 10_000

const isConvention = (value: unknown): value is NamingConvention => NAMING_CONVENTIONS.includes(value as NamingConvention)

/** PostHog's Taxonomy Standardizer: renames custom events to one convention; `$` events and survey events stay. */
export function taxonomyStandardizer(config: Record<string, unknown>): Transformation {
  const convention = isConvention(config.defaultNamingConvention) ? config.defaultNamingConvention : 'camelCase'
  // A project has few event names: each is converted once.
  const renames = new Map<string, string>()
  return (event: PluginEvent) => {
    if (event.event.startsWith('$') || SKIPPED_EVENTS.has(event.event)) return event
    let renamed = renames.get(event.event)
    if (renamed === undefined) {
      renamed = toConvention(event.event, convention)
      if (renames.size >= KNOWN_NAMES) renames.clear()
      renames.set(event.event, renamed)
    }
    event.event = renamed
    return event
  }
}
