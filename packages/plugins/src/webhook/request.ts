import { createHmac } from 'node:crypto'
import { problems } from '@burrow/contracts'

/** The event a webhook sends, as its outbox row keeps it. */
export interface WebhookEvent {
  uuid: string
  event: string
  distinct_id: string
  properties: Record<string, unknown>
  timestamp: string
  team_id: number
  person_id: string | null
  elements_chain: string
}

export interface WebhookRequest {
  url: string
  method: string
  headers: Record<string, string>
  body: string
}

export const SIGNATURE_HEADER = 'X-Burrow-Signature'

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)

/** The webhook fields of a config, refused with the field's attr when they cannot be used. */
export function validateWebhookConfig(config: Record<string, unknown>): void {
  let url: URL | undefined
  try {
    url = new URL(text(config.url) ?? '')
  } catch {
    url = undefined
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw problems.validation('config__url', 'Enter a valid http:// or https:// URL.')
  }
  const headers = text(config.headers)
  if (headers !== undefined) {
    const parsed: unknown = JSON.parse(headers)
    if (!isObject(parsed) || Object.values(parsed).some((v) => typeof v !== 'string')) {
      throw problems.validation('config__headers', 'Headers must be a JSON object of header names and text values.')
    }
  }
}

/** Event names the config sends; undefined sends every event. */
export function eventFilter(config: Record<string, unknown>): Set<string> | undefined {
  const names = (text(config.events) ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '')
  return names.length > 0 ? new Set(names) : undefined
}

function valueAt(root: Record<string, unknown>, path: string): unknown {
  let value: unknown = root
  for (const key of path.split('.')) {
    if (!isObject(value)) return undefined
    value = value[key]
  }
  return value
}

const WHOLE = /^\{\{\s*([\w$.]+)\s*\}\}$/
const INLINE = /\{\{\s*([\w$.]+)\s*\}\}/g

/** The template with `{{event...}}` filled: a string that is only a placeholder takes the value itself. */
function render(template: unknown, scope: Record<string, unknown>): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE.exec(template)
    if (whole) return valueAt(scope, whole[1]!) ?? null
    return template.replace(INLINE, (_m, path: string) => {
      const value = valueAt(scope, path)
      return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value)
    })
  }
  if (Array.isArray(template)) return template.map((item) => render(item, scope))
  if (isObject(template)) return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, render(v, scope)]))
  return template
}

/** The request a config makes for an event: its payload template filled, its headers, and the signature when it has a secret. */
export function webhookRequest(config: Record<string, unknown>, event: WebhookEvent): WebhookRequest {
  const scope = { event }
  const payload = text(config.payload)
  const body = JSON.stringify(payload === undefined ? event : render(JSON.parse(payload), scope))
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  const extra = text(config.headers)
  if (extra !== undefined) {
    const parsed: unknown = JSON.parse(extra)
    if (isObject(parsed)) for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') headers[k] = v
  }
  const secret = text(config.secret)
  if (secret !== undefined) headers[SIGNATURE_HEADER] = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
  return { url: render(text(config.url) ?? '', scope) as string, method: text(config.method) ?? 'POST', headers, body }
}
