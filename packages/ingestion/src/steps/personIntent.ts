import { isJsonObject } from '@burrow/contracts'
import { replaceNul } from '@burrow/core'
import { ok, type Step } from '../pipeline'
import { storedDistinctId } from './distinctId'

/**
 * What an event asks of its person, carried in the spool beside the row so that persons are
 * processed per batch by the consumer, not per request. A plain string is an event that only
 * needs its distinct id's person (the common case, kept small).
 */
export type PersonIntent =
  | string
  | {
      /** The event's distinct id. */
      d: string
      /** `$set`, `$set_once`, `$unset`. */
      s?: Record<string, unknown>
      o?: Record<string, unknown>
      u?: string[]
      /** Another distinct id to put on the same person (`$identify`, `$create_alias`, `$merge_dangerously`). */
      m?: string
      /** The merge may join two identified persons (`$merge_dangerously`). */
      f?: 1
      /** No person processing (`$process_person_profile: false`): the event is stored without a person. */
      x?: 1
      /** Group types the event names (`$groups`, `$groupidentify`), registered for group flags. */
      g?: string[]
    }

/**
 * Distinct ids PostHog refuses to merge on: placeholders that clients send by mistake and that
 * would join unrelated users into one person.
 */
const ILLEGAL_MERGE_IDS = new Set([
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
  'null',
  '0',
  '[object object]',
  'nan',
  'none',
  '',
])

export const isIllegalMergeId = (id: string): boolean => ILLEGAL_MERGE_IDS.has(id.trim().toLowerCase())

function mergeTarget(name: string, properties: Record<string, unknown>): string | undefined {
  const other = name === '$identify' ? properties.$anon_distinct_id : name === '$create_alias' || name === '$merge_dangerously' ? properties.alias : undefined
  if (typeof other !== 'string' && typeof other !== 'number') return undefined
  return storedDistinctId(String(other))
}

/** Reads the person changes of an event from its built properties (after build_properties). */
export const readPersonIntent: Step = {
  name: 'read_person_intent',
  run(event) {
    const p = event.properties
    const d = event.distinctId
    const groupTypes = isJsonObject(p.$groups) ? Object.keys(p.$groups) : []
    if (event.name === '$groupidentify' && typeof p.$group_type === 'string') groupTypes.push(p.$group_type)
    // Built field by field rather than spread, for the reason given in the properties step.
    const intent: Exclude<PersonIntent, string> = { d }
    if (groupTypes.length > 0) intent.g = [...new Set(groupTypes.map(replaceNul))]
    if (p.$process_person_profile === false) {
      intent.x = 1
      event.person = intent
      return ok
    }
    if (isJsonObject(p.$set) && Object.keys(p.$set).length > 0) intent.s = p.$set
    if (isJsonObject(p.$set_once) && Object.keys(p.$set_once).length > 0) intent.o = p.$set_once
    if (Array.isArray(p.$unset)) intent.u = p.$unset.filter((k): k is string => typeof k === 'string')
    else if (isJsonObject(p.$unset)) intent.u = Object.keys(p.$unset)
    if (intent.u?.length === 0) delete intent.u
    const other = mergeTarget(event.name, p)
    if (other !== undefined && other !== d && !isIllegalMergeId(other) && !isIllegalMergeId(d)) {
      intent.m = other
      if (event.name === '$merge_dangerously') intent.f = 1
    }
    event.person = Object.keys(intent).length === 1 ? d : intent
    return ok
  },
}
