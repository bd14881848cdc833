import { isJsonObject } from '@burrow/contracts'
import { replaceNul } from '@burrow/core'
import type { PersonChanges } from '@burrow/spool'
import { ok, type Step } from '../pipeline'

/** PostHog's bounds: a group type or key longer than this names no group. */
const MAX_GROUP_TYPE_LENGTH = 400
const MAX_GROUP_KEY_LENGTH = 400

/** A group key as PostHog reads one: a string or a number, as text. */
function groupKeyOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length > 0 && value.length <= MAX_GROUP_KEY_LENGTH ? value : undefined
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}

/**
 * Reads what an event asks of its groups: the groups it belongs to (`$groups`, or for a
 * `$groupidentify` without them its own group), whose keys the consumer writes into the
 * event's `$group_0`…`$group_4` properties once it knows the types' indexes, and the
 * properties a `$groupidentify` sets (`$group_type`, `$group_key`, `$group_set`). Runs after
 * the person intent, which it extends.
 */
export const readGroups: Step = {
  name: 'read_groups',
  run(event) {
    const p = event.properties
    const groups: Record<string, string> = {}
    if (isJsonObject(p.$groups)) {
      for (const [type, value] of Object.entries(p.$groups)) {
        // The key as the event carries it (a number stays a number), in JSON.
        if (type.length <= MAX_GROUP_TYPE_LENGTH && groupKeyOf(value) !== undefined) groups[replaceNul(type)] = JSON.stringify(value)
      }
    }
    let groupSet: PersonChanges['groupSet']
    if (event.name === '$groupidentify' && typeof p.$group_type === 'string' && p.$group_type.length <= MAX_GROUP_TYPE_LENGTH) {
      const key = groupKeyOf(p.$group_key)
      if (key !== undefined) {
        const type = replaceNul(p.$group_type)
        groupSet = { type, key: replaceNul(key), set: isJsonObject(p.$group_set) ? p.$group_set : {} }
        if (!isJsonObject(p.$groups)) groups[type] = JSON.stringify(p.$group_key)
      }
    }
    if (Object.keys(groups).length === 0 && !groupSet) return ok
    const intent: PersonChanges = typeof event.person === 'string' ? { distinctId: event.person } : event.person
    if (Object.keys(groups).length > 0) intent.groups = groups
    if (groupSet) intent.groupSet = groupSet
    event.person = intent
    return ok
  },
}
