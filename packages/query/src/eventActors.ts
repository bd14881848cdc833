import { ACTOR_SQL, NIL_UUID_SQL, personJoinSql } from './events'
import { TEAM } from './sql'

/**
 * The events that must look their person up by distinct id: those stored without a person
 * (`$process_person_profile: false`, or persons that could not be processed) and those stored
 * with a person that is gone.
 *
 * A distinct id leaves its person only when that person goes: merged into another (every
 * distinct id of the person moves with it) or deleted (every one is deleted, and may come back
 * with a new person). A person is deleted once, and its deletion's version outranks every other
 * of the person, so a person with a deleted row is gone for good, and one without is the person
 * of every distinct id it had. An event stored with a person that is still there therefore
 * belongs to that person now (PostHog's persons on events), and only the others need the join.
 */
const MUST_LOOK_UP = `(person_id = ${NIL_UUID_SQL} OR person_id IN (SELECT id FROM person WHERE team_id = ${TEAM} AND is_deleted = 1))`

/**
 * The events that pass `where`, with `columns` and their `distinct_id` and `person_id`, each with
 * the person it counts for now as `actor`: its distinct id's person where it must be looked up
 * and the id has one, else the person stored with it (the events of a distinct id that has no
 * person now keep theirs). The two kinds are read apart, so that only the few events that must
 * be looked up are joined with the distinct ids.
 */
export function eventsWithActorSql(columns: string, where: string): string {
  const select = `SELECT distinct_id, person_id, ${columns} FROM events`
  return `SELECT distinct_id, person_id, ${columns}, person_id AS actor FROM events WHERE ${where} AND NOT ${MUST_LOOK_UP}
    UNION ALL
    SELECT e.*, ${ACTOR_SQL} AS actor
    FROM (${select} WHERE ${where} AND ${MUST_LOOK_UP}) AS e
    ${personJoinSql()}`
}

/** The person an event of `eventsWithActorSql`'s rows (as `e`) counts for. */
export const ACTOR = 'e.actor'
