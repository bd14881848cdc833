import { isJsonObject } from '@burrow/contracts'
import { ok, type Step } from '../pipeline'
import { addInitialAndUtmProperties } from './initialProperties'

const escapeQuotes = (text: string): string => text.replaceAll('"', '\\"')

/** Text of a chain value as PostHog writes it (JavaScript's own string conversion: arrays join with commas). */
const chainText = (value: unknown): string => escapeQuotes(String(value))

function classesOf(value: unknown): string[] {
  if (!value) return []
  if (Array.isArray(value)) return value.map(String)
  return typeof value === 'string' ? value.split(' ') : []
}

/**
 * posthog-js's `$elements` list as PostHog's elements_chain text: per element, the tag, its
 * classes sorted, then `:` and its attributes sorted by name (text, href, attr_id, nth-child and
 * nth-of-type, which default to 0, and every `attr__*` the client sent, `attr__class` included).
 */
export function elementsToChain(elements: unknown[]): string {
  return elements
    .filter(isJsonObject)
    .map((el) => {
      const classes = classesOf(el.attr__class).sort()
      let text = `${typeof el.tag_name === 'string' ? el.tag_name : ''}${classes.map((c) => `.${c.replaceAll('"', '')}`).join('')}`
      const attributes: [string, unknown][] = []
      const elText = typeof el.$el_text === 'string' ? el.$el_text.slice(0, 400) : el.$el_text
      const href = typeof el.attr__href === 'string' ? el.attr__href.slice(0, 2048) : el.attr__href
      if (elText) attributes.push(['text', elText])
      attributes.push(['nth-child', el.nth_child ?? 0], ['nth-of-type', el.nth_of_type ?? 0])
      if (href) attributes.push(['href', href])
      if (el.attr__id) attributes.push(['attr_id', el.attr__id])
      for (const key of Object.keys(el)) if (key.startsWith('attr__')) attributes.push([key, el[key]])
      attributes.sort(([a], [b]) => a.localeCompare(b))
      text += `:${attributes.map(([key, value]) => `${escapeQuotes(key)}="${chainText(value)}"`).join('')}`
      return text
    })
    .join(';')
}

/**
 * Copies the fields of a client's JSON object into `target`, as a spread would: `__proto__` is
 * an ordinary key in JSON and is defined as one, not set as the prototype.
 *
 * Not a spread: on Node 20, a spread copy that then gets another field (`$ip` here) is
 * allocated in the old generation (about 470 bytes per event, measured), so every event's
 * properties would wait for a major garbage collection to be freed.
 */
function assignFields(target: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(source)) {
    if (key === '__proto__')
      Object.defineProperty(target, key, { value: source[key], enumerable: true, writable: true, configurable: true })
    else target[key] = source[key]
  }
  return target
}

/**
 * The event's elements as PostHog keeps them: a non-empty `$elements_chain` as sent, else the
 * chain made of `$elements`. Neither stays among the properties.
 */
function takeElementsChain(properties: Record<string, unknown>): string {
  const chain = properties.$elements_chain
  const elements = properties.$elements
  delete properties.$elements_chain
  delete properties.$elements
  if (typeof chain === 'string' && chain !== '') return chain
  return Array.isArray(elements) ? elementsToChain(elements) : ''
}

/**
 * The stored properties: the client's, with top-level `$set`/`$set_once` merged in (top level
 * wins), the client's address as `$ip` unless the project anonymises IPs (or the event names a
 * non-empty one), the request's `sent_at` as `$sent_at`, autocapture elements moved to
 * elements_chain, heatmap data left to heatmaps, the initial and UTM person properties, and the
 * `$process_person_profile` rules.
 */
export const buildProperties: Step = {
  name: 'build_properties',
  run(event, ctx) {
    const input = event.input
    const properties = isJsonObject(input.properties) ? assignFields({}, input.properties) : {}
    for (const key of ['$set', '$set_once'] as const) {
      const top = input[key]
      if (isJsonObject(top)) {
        const nested = properties[key]
        properties[key] = assignFields(isJsonObject(nested) ? assignFields({}, nested) : {}, top)
      }
    }
    if (ctx.project.anonymizeIps) delete properties.$ip
    else if (!properties.$ip && ctx.ip) properties.$ip = ctx.ip
    if (ctx.sentAtMs !== undefined) properties.$sent_at = new Date(ctx.sentAtMs).toISOString()
    event.elementsChain = takeElementsChain(properties)
    // Heatmap data goes to heatmaps, which are not stored here; the event keeps the rest.
    delete properties.$heatmap_data
    if (event.name !== '$snapshot') addInitialAndUtmProperties(properties)
    if (properties.$process_person_profile === false) {
      delete properties.$set
      delete properties.$set_once
      delete properties.$unset
    } else if (properties.$process_person_profile === true) {
      delete properties.$process_person_profile
    }
    event.properties = properties
    return ok
  },
}
