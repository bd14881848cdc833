import { isJsonObject } from '@burrow/contracts'
import { replaceNul } from '@burrow/core'
import type { PersonChanges } from '@burrow/spool'
import { ok, type Step } from '../pipeline'
import { storedDistinctId } from './distinctId'
import { isSoftPersonProperty } from './initialProperties'

/** Placeholders that clients send by mistake and that would join unrelated users into one person, whatever their case. */
const ANY_CASE_PLACEHOLDERS = [
  'anonymous',
  'guest',
  'distinctid',
  'distinct_id',
  'id',
  'not_authenticated',
  'email',
  'undefined',
  'true',
  'false',
]
/** Placeholders only in this exact spelling: `nan` or `NULL` may be real ids, `NaN` and `null` are not. */
const EXACT_PLACEHOLDERS = ['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined']
/** Each placeholder also as it arrives wrapped in single or double quotes. */
const quoted = (ids: string[]): Set<string> => new Set(ids.flatMap((id) => [id, `'${id}'`, `"${id}"`]))
const ILLEGAL_ANY_CASE = quoted(ANY_CASE_PLACEHOLDERS)
const ILLEGAL_EXACT = quoted(EXACT_PLACEHOLDERS)

/** Whether PostHog refuses to merge on this distinct id: blank, or a placeholder (compared untrimmed). */
export const isIllegalMergeId = (id: string): boolean => id.trim() === '' || ILLEGAL_ANY_CASE.has(id.toLowerCase()) || ILLEGAL_EXACT.has(id)

function mergeTarget(name: string, properties: Record<string, unknown>): string | undefined {
  const other =
    name === '$identify'
      ? properties.$anon_distinct_id
      : name === '$create_alias' || name === '$merge_dangerously'
        ? properties.alias
        : undefined
  if (typeof other !== 'string' && typeof other !== 'number') return undefined
  return storedDistinctId(String(other))
}

/**
 * Events that never change person properties: `$exception` and `$$heatmap` are processed apart
 * from other events in PostHog, and `$groupidentify`'s properties are the group's.
 */
const NO_PERSON_UPDATE_EVENTS = new Set(['$exception', '$$heatmap', '$groupidentify'])
/** Events about the person itself: every property they set updates the person. */
const PERSON_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$set'])

/** Reads the person changes of an event from its built properties (after build_properties). */
export const readPersonIntent: Step = {
  name: 'read_person_intent',
  run(event) {
    const p = event.properties
    const distinctId = event.distinctId
    const groupTypes = isJsonObject(p.$groups) ? Object.keys(p.$groups) : []
    if (event.name === '$groupidentify' && typeof p.$group_type === 'string') groupTypes.push(p.$group_type)
    // Built field by field rather than spread, for the reason given in the properties step.
    const intent: PersonChanges = { distinctId }
    if (groupTypes.length > 0) intent.groupTypes = [...new Set(groupTypes.map(replaceNul))]
    if (p.$process_person_profile === false) {
      intent.noPerson = true
      event.person = intent
      return ok
    }
    readPropertyChanges(intent, event.name, p)
    const other = mergeTarget(event.name, p)
    if (other !== undefined && other !== distinctId) {
      const illegal = isIllegalMergeId(distinctId) ? distinctId : isIllegalMergeId(other) ? other : undefined
      if (illegal === undefined) {
        intent.mergeWith = other
        if (event.name === '$merge_dangerously') intent.forceMerge = true
      } else {
        const otherDistinctId = illegal === distinctId ? other : distinctId
        ;(event.warnings ??= []).push({
          type: 'cannot_merge_with_illegal_distinct_id',
          details: { illegalDistinctId: illegal, otherDistinctId, eventUuid: event.uuid },
        })
      }
    }
    event.person = Object.keys(intent).length === 1 ? distinctId : intent
    return ok
  },
}

/**
 * Reads an event's `$set` (parted into what updates the person and what only goes along, see
 * PersonChanges.softSet), `$set_once` and `$unset` into its person intent; events that never
 * change a person leave it as it is. Plugins that change an event read it again with this.
 */
export function readPropertyChanges(intent: PersonChanges, eventName: string, p: Record<string, unknown>): void {
  if (NO_PERSON_UPDATE_EVENTS.has(eventName)) return
  if (isJsonObject(p.$set) && Object.keys(p.$set).length > 0) {
    if (PERSON_EVENTS.has(eventName)) intent.set = p.$set
    else splitSoftSet(intent, p.$set)
  }
  if (isJsonObject(p.$set_once) && Object.keys(p.$set_once).length > 0) intent.setOnce = p.$set_once
  if (Array.isArray(p.$unset)) intent.unset = p.$unset.filter((k): k is string => typeof k === 'string')
  else if (isJsonObject(p.$unset)) intent.unset = Object.keys(p.$unset)
  if (intent.unset?.length === 0) delete intent.unset
  if (PERSON_EVENTS.has(eventName) && (intent.set || intent.setOnce || intent.unset)) intent.personEvent = true
}

/** Parts `$set` into the values that update the person and those that update it only along with others. */
function splitSoftSet(intent: PersonChanges, set: Record<string, unknown>): void {
  let hard: Record<string, unknown> | undefined
  let soft: Record<string, unknown> | undefined
  for (const key of Object.keys(set)) {
    if (isSoftPersonProperty(key)) (soft ??= {})[key] = set[key]
    else (hard ??= {})[key] = set[key]
  }
  if (hard) intent.set = hard
  if (soft) intent.softSet = soft
}
