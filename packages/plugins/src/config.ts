import { problems, type PluginConfigField } from '@burrow/contracts'

/** What a secret field shows instead of its value (PostHog's exact text, which clients recognise). */
export const SECRET_FIELD_MASK = '**************** POSTHOG SECRET FIELD ****************'

const fieldAttr = (key: string) => `config__${key}`

function fieldValue(field: PluginConfigField, value: unknown): string {
  if (field.type === 'json') {
    if (typeof value !== 'string') return JSON.stringify(value)
    try {
      JSON.parse(value)
    } catch {
      throw problems.validation(fieldAttr(field.key), `"${field.name}" must be valid JSON.`)
    }
    return value
  }
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw problems.validation(fieldAttr(field.key), `"${field.name}" must be text.`)
  }
  const text = String(value)
  if (field.type === 'choice' && !field.choices?.includes(text)) {
    throw problems.validation(fieldAttr(field.key), `"${text}" is not a valid choice.`, 'invalid_choice')
  }
  return text
}

/**
 * A plugin config's `config` after a write, checked against the plugin's schema. A config sent
 * replaces the one stored, as in PostHog, except that a secret left out, null or sent back masked
 * keeps its value (clients never see it to send it again); without a config sent, the stored one
 * stays. Keys the schema does not know are dropped; defaults fill what is unset; an enabled config
 * must have every required field.
 */
export function mergeConfig(
  schema: PluginConfigField[],
  previous: Record<string, unknown>,
  incoming: Record<string, unknown> | undefined,
  enabled: boolean,
): Record<string, unknown> {
  const merged: Record<string, unknown> = {}
  for (const field of schema) {
    const sent = incoming?.[field.key]
    const keep = incoming === undefined || (field.secret === true && (sent === undefined || sent === null || sent === SECRET_FIELD_MASK))
    if (!keep && sent !== undefined && sent !== null && sent !== '') merged[field.key] = fieldValue(field, sent)
    else if (keep && previous[field.key] !== undefined) merged[field.key] = previous[field.key]
    else if (field.default !== undefined && sent === undefined) merged[field.key] = field.default
  }
  if (enabled) {
    const missing = schema.find((field) => field.required && (merged[field.key] === undefined || merged[field.key] === ''))
    if (missing) throw problems.validation(fieldAttr(missing.key), `"${missing.name}" is required to enable the plugin.`, 'required')
  }
  return merged
}

/**
 * Refuses an update that moves the config's URL (the field `urlKey`) to another host while a
 * stored secret would be kept: the signing secret and the extra headers (often credentials)
 * were given for the old address and would otherwise be sent to the new one, whoever runs it.
 * As PostHog does, each must then be given again (or cleared with an empty value).
 */
export function checkSecretsFollowHost(
  schema: PluginConfigField[],
  previous: Record<string, unknown>,
  incoming: Record<string, unknown> | undefined,
  urlKey: string,
): void {
  if (incoming === undefined) return
  const hostOf = (value: unknown) => {
    try {
      return typeof value === 'string' ? new URL(value).host : undefined
    } catch {
      return undefined
    }
  }
  const host = hostOf(incoming[urlKey])
  // No valid URL, nothing is sent; the next URL given is then compared with this one.
  if (host === undefined || host === hostOf(previous[urlKey])) return
  for (const field of schema) {
    if (!field.secret || previous[field.key] === undefined) continue
    const sent = incoming[field.key]
    if (sent === undefined || sent === null || sent === SECRET_FIELD_MASK) {
      throw problems.validation(fieldAttr(field.key), `"${field.name}" must be given again when the URL's host changes.`, 'required')
    }
  }
}

/** The config as responses show it: secrets that are set replaced by the mask. */
export function maskSecrets(schema: PluginConfigField[], config: Record<string, unknown>): Record<string, unknown> {
  const masked = { ...config }
  for (const field of schema) if (field.secret && masked[field.key] !== undefined) masked[field.key] = SECRET_FIELD_MASK
  return masked
}
