import { replaceNul } from '@burrow/core'
import { drop, ok, type Step } from '../pipeline'

/**
 * An event without a name is dropped (the spec's first silent drop). NUL becomes U+FFFD, as in
 * distinct ids: the name is also an event definition's in PostgreSQL.
 */
export const requireEventName: Step = {
  name: 'require_event_name',
  run(event) {
    const name = event.input.event
    if (name === undefined || name === null || name === '') return drop('missing_event_name')
    if (typeof name !== 'string') return drop('invalid_event_name')
    event.name = replaceNul(name)
    return ok
  },
}
