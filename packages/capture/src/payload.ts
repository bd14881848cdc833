import { isJsonObject, problems } from '@burrow/contracts'

/** An event as a client sent it: any JSON object; the pipeline checks each field. */
export type RawEvent = Record<string, unknown>

export interface CaptureRequest {
  events: RawEvent[]
  /** The project API key (or a personal API key) the request names, if any. */
  token: string | undefined
  /** `project_id`, for requests authenticated with a personal API key. */
  projectId: string | undefined
  /** The client's send time in epoch ms (a batch's `sent_at`, or `_`), used to correct client clock skew. */
  sentAtMs: number | undefined
}

export interface RequestMeta {
  path: string
  query: URLSearchParams
  form: URLSearchParams | undefined
  /** Authorization header, for Segment's Basic auth with the write key as user name. */
  authorization: string | undefined
}

const nonEmptyString = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined)

function eventToken(event: RawEvent): string | undefined {
  return (
    nonEmptyString(event.api_key) ??
    nonEmptyString(event.token) ??
    nonEmptyString(event.$token) ??
    nonEmptyString(event.writeKey) ??
    (isJsonObject(event.properties) ? nonEmptyString(event.properties.token) : undefined)
  )
}

function basicAuthUser(authorization: string | undefined): string | undefined {
  const match = authorization ? /^Basic\s+(\S+)$/i.exec(authorization) : null
  if (!match?.[1]) return undefined
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  return nonEmptyString(decoded.split(':')[0])
}

/** Epoch ms of a batch's `sent_at`: ISO 8601 text with its zone, as PostHog's capture reads it. */
export function parseSentAt(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[zZ]|[+-]\d{2}:\d{2})$/.test(value)) return undefined
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : ms
}

/** Epoch ms of the `_` query parameter posthog-js adds to each request: an integer of milliseconds. */
export function parseRequestTime(value: string | null | undefined): number | undefined {
  if (!value || !/^\d{1,16}$/.test(value)) return undefined
  return Number(value)
}

/**
 * The events and credentials of a parsed capture body. Accepted shapes: an array of events,
 * `{api_key|token, batch: [...]}`, or a single event (on `/engage` without a name: `$identify`).
 * A batch-level key wins over per-event keys; otherwise all events must agree on one key.
 */
export function captureRequestFrom(body: unknown, meta: RequestMeta): CaptureRequest {
  let events: RawEvent[]
  let batchToken: string | undefined
  let sentAt: unknown
  let projectId: unknown
  if (Array.isArray(body)) {
    events = body.filter(isJsonObject)
  } else if (isJsonObject(body) && Array.isArray(body.batch)) {
    events = body.batch.filter(isJsonObject)
    batchToken = nonEmptyString(body.api_key) ?? nonEmptyString(body.token) ?? nonEmptyString(body.writeKey)
    sentAt = body.sent_at
    projectId = body.project_id
  } else if (isJsonObject(body)) {
    events = [body]
    projectId = body.project_id
    if (meta.path.startsWith('/engage') && body.event === undefined) events = [{ ...body, event: '$identify' }]
  } else {
    throw problems.malformed('expected a JSON object or array of events')
  }

  let token = batchToken
  if (token === undefined) {
    for (const event of events) {
      const t = eventToken(event)
      if (t === undefined) continue
      if (token !== undefined && t !== token) throw problems.multipleTokens()
      token = t
    }
  }
  token ??=
    nonEmptyString(meta.form?.get('api_key')) ??
    nonEmptyString(meta.form?.get('token')) ??
    nonEmptyString(meta.query.get('api_key')) ??
    nonEmptyString(meta.query.get('token')) ??
    basicAuthUser(meta.authorization)

  const projectIdText = projectId ?? meta.form?.get('project_id') ?? meta.query.get('project_id') ?? undefined
  return {
    events,
    token,
    projectId: typeof projectIdText === 'string' || typeof projectIdText === 'number' ? String(projectIdText) : undefined,
    // Only a batch says when it was sent, or posthog-js's `_`; an event's own `sent_at` is not read.
    sentAtMs: parseSentAt(sentAt) ?? parseRequestTime(meta.query.get('_')),
  }
}
