import { z } from 'zod'
import { isJsonObject } from '../json'

/**
 * How the query schemas treat the fields of PostHog's query schema, so that no field is accepted
 * and then ignored: an analyst who sets an option must get the chart it asks for, or a 400 naming
 * the option, never a plausible chart without it. A field is one of:
 *
 * - applied: declared with its type in the kind's schema;
 * - unsupported: refused (400 naming it) unless its value means what leaving it out means;
 * - client-side: what PostHog's own runners do not read either (legend, colours, axis formats,
 *   log tags): PostHog's clients send them with the query, and they pass.
 *
 * Fields PostHog's schema does not have pass, as PostHog's own parsing lets them.
 */

/** Whether two JSON values are the same value. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameJson(v, b[i]))
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a).filter((k) => a[k] !== undefined)
    return keys.length === Object.keys(b).filter((k) => b[k] !== undefined).length && keys.every((k) => sameJson(a[k], b[k]))
  }
  return false
}

/**
 * A field of PostHog's schema this service does not apply. Absent, null, or one of `neutral`
 * (the values PostHog reads as its default: `false`, `1`, `[]` …) passes, since it asks for nothing;
 * any other value is refused, naming the field.
 */
export function unsupported(name: string, neutral: readonly unknown[] = []) {
  return z
    .unknown()
    .superRefine((value, ctx) => {
      if (value === undefined || value === null || neutral.some((n) => sameJson(n, value))) return
      ctx.addIssue({ code: 'custom', message: `${name} is not supported.` })
    })
    .optional()
}

/** A field PostHog's clients send for their own display, which PostHog's runners do not read. */
export const clientSide = z.unknown().optional()

/**
 * PostHog's `modifiers`: how its HogQL is compiled (persons on events, materialization, session
 * tables …). Each changes what a query means, and none is applied here: an empty object passes,
 * a modifier set to anything but null is refused, naming it.
 */
export const modifiersSchema = z
  .record(z.string().max(100), z.unknown())
  .superRefine((modifiers, ctx) => {
    for (const [key, value] of Object.entries(modifiers)) {
      if (value === null || value === undefined) continue
      ctx.addIssue({ code: 'custom', path: [key], message: `The modifier ${key} is not supported.` })
    }
  })
  .nullish()

/** The fields every node of PostHog's schema has beside its kind: a schema version and its query log tags. */
export const nodeFields = {
  version: clientSide,
  tags: clientSide,
}

/**
 * The error of a union told apart by `kind` when no member has the kind given: a kind of PostHog's
 * schema that is not served is refused as such, naming it, not as a malformed query.
 */
export const kindNotServed = (issue: { code: string; input?: unknown }) => {
  if (issue.code !== 'invalid_union') return undefined
  const kind = typeof issue.input === 'object' && issue.input !== null ? (issue.input as { kind?: unknown }).kind : undefined
  return typeof kind === 'string' && kind.length > 0 && kind.length <= 100 ? `${kind} is not supported.` : undefined
}
