import { v7 as uuidv7 } from 'uuid'
import { COOKIELESS_SENTINEL, cookielessDistinctId, visitorHash } from './cookieless'
import type { DraftEvent } from './pipeline'

/**
 * PostHog's stateful cookieless mode, on state every instance shares:
 * - sessions end after 30 minutes without events (by event time, not by expiry, since ingestion
 *   may lag by more); a new session's id is a UUIDv7 of its first event's time;
 * - each `$identify` of a visitor is remembered against the visitor's base hash, and the number
 *   of identifies before an event is part of its hash, so that a visitor who logs out is a new
 *   anonymous visitor rather than the person they were identified as. An `$identify` names the
 *   anonymous hash as its `$anon_distinct_id`; events of an identified visitor keep their distinct
 *   id and the session of the hash they were identified from.
 * State expires with PostHog's TTLs: sessions after 96 hours, identifies after 122 hours (the
 * ingestion lag, the world's timezones and a day); a visitor's identifies are capped. As in
 * PostHog, a request reads and then writes the state: two requests of one visitor at the same
 * moment on two instances may both start a session.
 */
export interface CookielessState {
  get(keys: string[]): Promise<Array<string | undefined>>
  set(entries: Array<[string, string]>, ttlSeconds: number): Promise<void>
}

export const SESSION_INACTIVITY_MS = 30 * 60 * 1000
export const SESSION_TTL_SECONDS = 96 * 3600
export const IDENTIFIES_TTL_SECONDS = (72 + 12 + 14 + 24) * 3600
/** More identifies than this in a visitor's day are counted but not remembered one by one. */
const MAX_IDENTIFIES = 100

const unpadded = (hash: Buffer) => hash.toString('base64').replace(/=+$/, '')
const identifiesKey = (projectId: number, hash: Buffer) => `cklsi:${projectId}:${unpadded(hash)}`
const sessionKey = (projectId: number, hash: Buffer) => `cklss:${projectId}:${unpadded(hash)}`

function parseIdentifies(value: string | undefined): string[] {
  if (!value) return []
  try {
    const parsed: unknown = JSON.parse(value)
    return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === 'string') : []
  } catch {
    return []
  }
}

interface Session {
  id: string
  lastActivityMs: number
}

function parseSession(value: string | undefined): Session | undefined {
  const [id, last] = value?.split(' ') ?? []
  const lastActivityMs = Number(last)
  return id && Number.isFinite(lastActivityMs) ? { id, lastActivityMs } : undefined
}

/** Gives the stateful cookieless events of a request, in order, their distinct and session ids, and stores the new state. */
export async function assignCookielessVisits(events: DraftEvent[], projectId: number, state: CookielessState): Promise<void> {
  const visitors = events.filter((e) => e.cookieless)
  if (visitors.length === 0) return
  const identifiesKeys = [...new Set(visitors.map((e) => identifiesKey(projectId, e.cookieless!.baseHash)))]
  const identifies = new Map(
    (await state.get(identifiesKeys)).map((value, i) => [identifiesKeys[i]!, { ids: parseIdentifies(value), dirty: false }]),
  )

  const hashed: Array<{ event: DraftEvent; distinctId: string; sessionKey: string }> = []
  for (const event of visitors) {
    const visit = event.cookieless!
    const known = identifies.get(identifiesKey(projectId, visit.baseHash))!
    let n: number
    if (event.name === '$identify') {
      const seen = known.ids.includes(event.uuid)
      n = known.ids.length - (seen ? 1 : 0)
      if (!seen) {
        known.ids.push(event.uuid)
        if (known.ids.length > MAX_IDENTIFIES) known.ids.shift()
        known.dirty = true
      }
    } else if (event.distinctId === COOKIELESS_SENTINEL) {
      n = known.ids.length
    } else {
      // An identified visitor: the hash it had before its latest identify.
      n = known.ids.length - 1
    }
    const hash = n === 0 ? visit.baseHash : visitorHash(visit.salt, projectId, visit.ip, visit.host, visit.userAgent, visit.extra, n)
    hashed.push({ event, distinctId: cookielessDistinctId(hash), sessionKey: sessionKey(projectId, hash) })
  }

  const sessionKeys = [...new Set(hashed.map((h) => h.sessionKey))]
  const sessions = new Map((await state.get(sessionKeys)).map((value, i) => [sessionKeys[i]!, parseSession(value)]))
  for (const { event, distinctId, sessionKey: key } of hashed) {
    const timestampMs = event.cookieless!.timestampMs
    let session = sessions.get(key)
    if (!session || timestampMs - session.lastActivityMs > SESSION_INACTIVITY_MS) {
      session = { id: uuidv7({ msecs: Math.max(0, timestampMs) }), lastActivityMs: timestampMs }
      sessions.set(key, session)
    } else {
      session.lastActivityMs = Math.max(session.lastActivityMs, timestampMs)
    }
    event.properties.$session_id = session.id
    if (event.name === '$identify') event.properties.$anon_distinct_id = distinctId
    else if (event.distinctId === COOKIELESS_SENTINEL) event.distinctId = distinctId
    delete event.cookieless
  }

  const dirtyIdentifies = [...identifies].filter(([, v]) => v.dirty).map(([k, v]): [string, string] => [k, JSON.stringify(v.ids)])
  const touched = [...new Set(hashed.map((h) => h.sessionKey))].map((k): [string, string] => {
    const s = sessions.get(k)!
    return [k, `${s.id} ${s.lastActivityMs}`]
  })
  await Promise.all([
    dirtyIdentifies.length > 0 ? state.set(dirtyIdentifies, IDENTIFIES_TTL_SECONDS) : undefined,
    state.set(touched, SESSION_TTL_SECONDS),
  ])
}

/** How many identifies a visitor's base hash has had: the number in its current hash, as flags read it. */
export async function identifiesOf(state: CookielessState, projectId: number, baseHash: Buffer): Promise<number> {
  const [value] = await state.get([identifiesKey(projectId, baseHash)])
  return parseIdentifies(value).length
}
