/**
 * What an event asks of its person, carried in the spool beside the row so that persons are
 * processed per batch by the consumer, not per request. A plain string is an event that only
 * needs its distinct id's person (the common case, kept small).
 */
export type PersonIntent = string | PersonChanges

export interface PersonChanges {
  /** The event's distinct id. */
  distinctId: string
  /** `$set`, `$set_once`, `$unset`. */
  set?: Record<string, unknown>
  setOnce?: Record<string, unknown>
  unset?: string[]
  /**
   * The part of `$set` that alone does not update a person who already has those keys: the page,
   * browser and device properties copied from every event and most GeoIP values (PostHog's
   * filtered person update properties). Applied with any other change, or to a key the person lacks.
   */
  softSet?: Record<string, unknown>
  /**
   * An event about the person itself (`$identify`, `$create_alias`, `$merge_dangerously`, `$set`)
   * that changes properties: a change it makes writes the person with everything its batch
   * changed, filtered values included, as PostHog forces such updates.
   */
  personEvent?: true
  /** Another distinct id to put on the same person (`$identify`, `$create_alias`, `$merge_dangerously`). */
  mergeWith?: string
  /** The merge may join two identified persons (`$merge_dangerously`). */
  forceMerge?: true
  /** No person processing (`$process_person_profile: false`): the event is stored without a person. */
  noPerson?: true
  /** Group types the event names (`$groups`, `$groupidentify`), registered for group flags. */
  groupTypes?: string[]
  /** The groups the event belongs to, type → key (as JSON text), for its `$group_0`…`$group_4` properties. */
  groups?: Record<string, string>
  /** A `$groupidentify`: the group and the properties it sets. */
  groupSet?: GroupSet
}

export interface GroupSet {
  type: string
  key: string
  set: Record<string, unknown>
}
