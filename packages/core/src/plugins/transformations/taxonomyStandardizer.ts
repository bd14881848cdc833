import type { PluginEvent, Transformation } from './event'

export const NAMING_CONVENTIONS = ['camelCase', 'PascalCase', 'snake_case', 'kebab-case', 'spaces in between'] as const

/** Survey events keep their names: PostHog's survey views look for them by name. */
const SKIPPED_EVENTS = new Set(['survey shown', 'survey sent', 'survey dismissed'])

/** The words of a name in any of the conventions: split at separators and at lower→upper changes. */
function words(name: string): string[] {
  return name
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_\-.]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase())
}

/** Names whose conversion a config keeps. */
const KNOWN_NAMES = 10_000

const capitalised = (w: string) => w.charAt(0).toUpperCase() + w.slice(1)

export function toConvention(name: string, convention: string): string {
  const parts = words(name)
  if (parts.length === 0) return name
  switch (convention) {
    case 'PascalCase':
      return parts.map(capitalised).join('')
    case 'snake_case':
      return parts.join('_')
    case 'kebab-case':
      return parts.join('-')
    case 'spaces in between':
      return parts.join(' ')
    default:
      return parts[0]! + parts.slice(1).map(capitalised).join('')
  }
}

/** PostHog's Taxonomy Standardizer: renames custom events to one convention; `$` events and survey events stay. */
export function taxonomyStandardizer(config: Record<string, unknown>): Transformation {
  const convention = typeof config.defaultNamingConvention === 'string' ? config.defaultNamingConvention : 'camelCase'
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
