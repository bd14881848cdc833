import { isJsonObject } from '@burrow/contracts'
import { drop, ok, type Step } from '../pipeline'

/** Events that only act on persons or groups: without a person profile they mean nothing. */
const PERSON_PROFILE_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify'])

/**
 * Events PostHog does not store as events: `$performance_event` (its network timings are
 * dropped at capture), `$$heatmap` (heatmaps have their own store, which Burrow does not keep),
 * `$$client_ingestion_warning` (a library reporting a problem, kept as an ingestion warning),
 * and person events sent with `$process_person_profile: false` (a warning says why they
 * changed nothing). The request is still answered 200.
 */
export const divertNonEvents: Step = {
  name: 'divert_non_events',
  run(event) {
    const name = event.name
    if (name === '$performance_event') return drop('performance_event')
    if (name === '$$heatmap') return drop('heatmap')
    const properties = isJsonObject(event.input.properties) ? event.input.properties : {}
    const subject = { eventUuid: event.uuid, event: name, distinctId: event.distinctId }
    if (name === '$$client_ingestion_warning') {
      return drop('client_ingestion_warning', {
        type: 'client_ingestion_warning',
        details: { ...subject, message: properties.$$client_ingestion_warning_message },
      })
    }
    if (properties.$process_person_profile === false && PERSON_PROFILE_EVENTS.has(name)) {
      return drop('person_event_without_person_profile', { type: 'invalid_event_when_process_person_profile_is_false', details: subject })
    }
    return ok
  },
}
