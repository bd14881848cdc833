import { replaceNul } from '@burrow/core'
import { drop, ok, type Step } from '../pipeline'

const MAX_EVENT_NAME_LENGTH = 200

/** The first 200 UTF-16 units of a name, as PostHog keeps, without leaving half a surrogate pair. */
function truncatedName(name: string): string {
  if (name.length <= MAX_EVENT_NAME_LENGTH) return name
  const cut = name.slice(0, MAX_EVENT_NAME_LENGTH)
  const last = cut.charCodeAt(cut.length - 1)
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut
}

/**
 * An event without a name is dropped (the spec's first silent drop). NUL becomes U+FFFD, as in
 * distinct ids: the name is also an event definition's in PostgreSQL. Longer names keep their
 * first 200 characters.
 */
export const requireEventName: Step = {
  name: 'require_event_name',
  run(event) {
    const name = event.input.event
    if (name === undefined || name === null || name === '') return drop('missing_event_name')
    if (typeof name !== 'string') return drop('invalid_event_name')
    event.name = truncatedName(replaceNul(name))
    return ok
  },
}
