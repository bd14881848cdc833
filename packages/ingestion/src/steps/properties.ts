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
      let text = `${typeof el.tag_name === 'string' ? el.tag_name : ''}${classes.filter(Boolean).map((c) => `.${String(c)}`).join('')}`
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
 * The stored properties: the client's, with top-level `$set`/`$set_once` merged in (top level
 * wins), the client's address as `$ip` unless the project anonymises IPs, `$sent_at`, and
 * autocapture elements moved to elements_chain.
 */
export const buildProperties: Step = {
  name: 'build_properties',
  run(event, ctx) {
    const input = event.input
    const properties: Record<string, unknown> = isJsonObject(input.properties) ? { ...input.properties } : {}
    for (const key of ['$set', '$set_once'] as const) {
      if (isJsonObject(input[key])) {
        properties[key] = { ...(isJsonObject(properties[key]) ? properties[key] : {}), ...input[key] }
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
