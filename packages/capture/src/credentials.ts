import { keys } from '@burrow/core'
import type { RawEvent } from './payload'

/**
 * Removes a personal API key from events sent with it (`project_id` and the key as `token`):
 * it would otherwise be stored with the event and shown to everyone who reads the project's
 * events, or, from `$set` and `$set_once`, land on the person. Every string holding the key,
 * at any depth, goes (the field, or the array's element), and so does every field named with
 * it. The events are changed in place, so one without the key costs a walk and no copy; a
 * request with a project API key (public, kept as in PostHog) costs nothing.
 */
export function withoutPersonalKey(events: RawEvent[], token: string | undefined): void {
  if (token === undefined || !keys.isPersonalApiKey(token)) return
  for (const event of events) removeKey(event, token)
}

type Container = Record<string, unknown> | unknown[]

const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null

// Recursion is bounded: capture refuses JSON nested more than 128 levels deep.
function removeKey(value: Container, key: string): void {
  if (Array.isArray(value)) {
    // Backwards, so that removing an element does not skip the next one.
    for (let i = value.length - 1; i >= 0; i--) {
      const item = value[i]
      if (typeof item === 'string') {
        if (item.includes(key)) value.splice(i, 1)
      } else if (isContainer(item)) removeKey(item, key)
    }
    return
  }
  // Parsed JSON: plain objects with no inherited enumerable fields, and deleting the field being visited is safe.
  for (const name in value) {
    const item = value[name]
    if (name.includes(key) || (typeof item === 'string' && item.includes(key))) delete value[name]
    else if (isContainer(item)) removeKey(item, key)
  }
}
