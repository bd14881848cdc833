import { drop, ok, type Step } from '../pipeline'

/** An event without a name is dropped (the spec's first silent drop). */
export const requireEventName: Step = {
  name: 'require_event_name',
  run(event) {
    const name = event.input.event
    if (name === undefined || name === null || name === '') return drop('missing_event_name')
    if (typeof name !== 'string') return drop('invalid_event_name')
    event.name = name
    return ok
  },
}
