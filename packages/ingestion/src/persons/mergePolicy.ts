import type { MergedPerson, MergePerson, MergePlan, MergeState } from '@burrow/postgres'
import type { PersonChanges } from '@burrow/spool'

// Which events merge, and with which id, is decided where the event is read (capture's
// `read_person_intent` step): it sees the event's name and properties, and it leaves out
// placeholder ids (`anonymous`, `null`, ...) and merges of an id with itself, so that such events
// reach the spool as plain distinct ids and cost the main thread nothing. What a merge does with
// the persons it finds is decided here.

export interface MergeOptions {
  /** The person the ids end up on is marked identified. */
  markIdentified: boolean
  /** The other id's person may be merged even if it is identified (`$merge_dangerously`). */
  force: boolean
  /** When the merge event happened: the creation time of a person made for two new ids. */
  createdAt: Date
}

/** The options of a merge event's intent: every merge event identifies, as in PostHog. */
export function mergeOptionsOf(intent: PersonChanges, createdAt: Date): MergeOptions {
  return { markIdentified: true, force: intent.forceMerge === true, createdAt }
}

/**
 * Plans the merge of two distinct ids from their persons as the transaction has locked them:
 * two new ids get one new person; a new id joins the other id's person; ids already on one
 * person stay; otherwise the other id's person is merged into the distinct id's, unless it is
 * already identified and the merge is not forced, since joining two known users is seldom
 * what an `$identify` means.
 */
export function planMerge(state: MergeState, options: MergeOptions): MergePlan {
  const { mine, other } = state
  const owner = mine ?? other
  if (!owner) {
    return {
      kind: 'create',
      distinctIds: [...new Set([state.distinctId, state.otherId])],
      isIdentified: options.markIdentified,
      createdAt: options.createdAt,
    }
  }
  const markIdentified = options.markIdentified && !owner.isIdentified
  if (!mine || !other) return { kind: 'link', personId: owner.id, distinctId: mine ? state.otherId : state.distinctId, markIdentified }
  if (mine.id === other.id) return { kind: 'unchanged', personId: mine.id, markIdentified }
  if (other.isIdentified && !options.force) return { kind: 'refuse', personId: mine.id }
  return { kind: 'merge', intoId: mine.id, fromId: other.id, person: mergedPerson(mine, other, options) }
}

/**
 * The kept person after `from` is merged into `into`, as PostHog merges: where both have a key,
 * `into`'s value wins (the person of the event's distinct id: the identified user's `plan` and
 * first-touch `$initial_*` survive an `$identify` of an anonymous visitor). The merged person is
 * as old as the older of the two, its properties changed as late as the later, and it is
 * identified if either was or the merge identifies.
 */
function mergedPerson(into: MergePerson, from: MergePerson, options: Pick<MergeOptions, 'markIdentified'>): MergedPerson {
  return {
    properties: { ...from.properties, ...into.properties },
    isIdentified: into.isIdentified || options.markIdentified || from.isIdentified,
    createdAt: from.createdAt < into.createdAt ? from.createdAt : into.createdAt,
    propertiesUpdatedAt: from.propertiesUpdatedAt > into.propertiesUpdatedAt ? from.propertiesUpdatedAt : into.propertiesUpdatedAt,
  }
}

/** PostgreSQL errors that a concurrent write of the same persons causes: unique violation, deadlock, serialization failure. */
const CONCURRENCY_CODES = new Set(['23505', '40P01', '40001'])
const MERGE_ATTEMPTS = 5

/**
 * Whether a merge that failed with `error` on attempt `attempt` (from 1) is tried again: another
 * server merging or creating the same ids makes the transaction fail, and the next attempt reads
 * what that server wrote.
 */
export function retriesMerge(error: unknown, attempt: number): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code
  return typeof code === 'string' && CONCURRENCY_CODES.has(code) && attempt < MERGE_ATTEMPTS
}
