import { ok, type Step } from '../pipeline'
import { isJsonObject } from '@burrow/contracts'

function escapeChainValue(value: unknown): string {
  return String(value).replaceAll('"', '\\"')
}

/** posthog-js's `$elements` list as PostHog's elements_chain text. */
export function elementsToChain(elements: unknown[]): string {
  return elements
    .filter(isJsonObject)
    .map((el) => {
      const classes = Array.isArray(el.attr__class) ? el.attr__class : typeof el.attr__class === 'string' ? el.attr__class.split(' ') : []
      let text = `${typeof el.tag_name === 'string' ? el.tag_name : ''}${classes
        .filter(Boolean)
        .map((c) => `.${String(c)}`)
        .join('')}`
      const attrs: string[] = []
      if (el.$el_text !== undefined) attrs.push(`text="${escapeChainValue(el.$el_text)}"`)
      if (el.attr__href !== undefined) attrs.push(`href="${escapeChainValue(el.attr__href)}"`)
      if (el.attr__id !== undefined) attrs.push(`attr_id="${escapeChainValue(el.attr__id)}"`)
      if (el.nth_child !== undefined) attrs.push(`nth-child="${escapeChainValue(el.nth_child)}"`)
      if (el.nth_of_type !== undefined) attrs.push(`nth-of-type="${escapeChainValue(el.nth_of_type)}"`)
      for (const [key, value] of Object.entries(el).sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (key.startsWith('attr__') && key !== 'attr__class') attrs.push(`${key}="${escapeChainValue(value)}"`)
      }
      if (attrs.length > 0) text += `:${attrs.join('')}`
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
 * The stored properties: the client's, with top-level `$set`/`$set_once` merged in (top level
 * wins), the client's address as `$ip` unless the project anonymises IPs, `$sent_at`, and
 * autocapture elements moved to elements_chain.
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
    else if (properties.$ip === undefined && ctx.ip) properties.$ip = ctx.ip
    if (ctx.sentAtMs !== undefined && properties.$sent_at === undefined) {
      properties.$sent_at = new Date(ctx.sentAtMs).toISOString()
    }
    if (typeof properties.$elements_chain === 'string') {
      event.elementsChain = properties.$elements_chain
      delete properties.$elements_chain
    } else if (Array.isArray(properties.$elements)) {
      event.elementsChain = elementsToChain(properties.$elements)
      delete properties.$elements
    }
    event.properties = properties
    return ok
  },
}
