import { isJsonObject } from '@burrow/contracts'
import { keys } from '@burrow/core'
import type { RawEvent } from './payload'

/** Where an event names the key it was sent with. */
const KEY_FIELDS = ['api_key', 'token', '$token', 'writeKey'] as const

/**
 * Removes a personal API key from events sent with it (`project_id` and the key as `token`):
 * it would otherwise be stored among the properties and shown to everyone who reads the
 * project's events. A project API key is public and stays, as in PostHog.
 */
export function withoutPersonalKey(events: RawEvent[], token: string | undefined): void {
  if (token === undefined || !keys.isPersonalApiKey(token)) return
  for (const event of events) {
    for (const field of KEY_FIELDS) if (event[field] === token) delete event[field]
    const properties = event.properties
    if (!isJsonObject(properties)) continue
    for (const name of Object.keys(properties)) if (properties[name] === token) delete properties[name]
  }
}
