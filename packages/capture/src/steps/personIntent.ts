import { isJsonObject } from '@burrow/contracts'
import { replaceNul } from '@burrow/core'
import type { PersonChanges } from '@burrow/spool'
import { ok, type Step } from '../pipeline'
import { storedDistinctId } from './distinctId'

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
  const other =
    name === '$identify'
      ? properties.$anon_distinct_id
      : name === '$create_alias' || name === '$merge_dangerously'
        ? properties.alias
        : undefined
  if (typeof other !== 'string' && typeof other !== 'number') return undefined
  return storedDistinctId(String(other))
}

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
    if (isJsonObject(p.$set) && Object.keys(p.$set).length > 0) intent.set = p.$set
    if (isJsonObject(p.$set_once) && Object.keys(p.$set_once).length > 0) intent.setOnce = p.$set_once
    if (Array.isArray(p.$unset)) intent.unset = p.$unset.filter((k): k is string => typeof k === 'string')
    else if (isJsonObject(p.$unset)) intent.unset = Object.keys(p.$unset)
    if (intent.unset?.length === 0) delete intent.unset
    const other = mergeTarget(event.name, p)
    if (other !== undefined && other !== distinctId && !isIllegalMergeId(other) && !isIllegalMergeId(distinctId)) {
      intent.mergeWith = other
      if (event.name === '$merge_dangerously') intent.forceMerge = true
    }
    event.person = Object.keys(intent).length === 1 ? distinctId : intent
    return ok
  },
}
