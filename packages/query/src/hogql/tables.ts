/**
 * The tables a HogQL query may read, each printed as a subquery of its own with the caller's
 * `team_id` in its WHERE clause: whatever the query does around it (joins, unions, subqueries),
 * the rows it can reach are the project's. Nothing else reaches ClickHouse's tables.
 */
import { GROUP_COLUMNS } from '@burrow/clickhouse'

/** What a name on a table resolves to. */
export type TableField =
  | { kind: 'column'; column: string }
  /** JSON text: `properties.$browser` reads a key of it. */
  | { kind: 'json'; column: string }
  /** The person of an event, joined on demand: `person.properties.email`. */
  | { kind: 'person' }

export interface TableNeeds {
  /** The current person of each distinct id (after merges), for `person_id`. */
  personId: boolean
  /** The person's latest properties, for `person.properties...`. */
  person: boolean
}

export interface VirtualTable {
  name: string
  fields: Record<string, TableField>
  /** What `SELECT *` lists, in order. */
  star: string[]
  /** The subquery the table reads as; `team` and `tz` are printed parameters. */
  sql(needs: TableNeeds, team: string, tz: string): string
}

/** The fields of `person` on an event, and the column of the events subquery each reads. */
export const PERSON_FIELDS: Record<string, TableField> = {
  id: { kind: 'column', column: 'person_id' },
  properties: { kind: 'json', column: 'person_properties' },
  created_at: { kind: 'column', column: 'person_created_at' },
  is_identified: { kind: 'column', column: 'person_is_identified' },
}

const column = (name: string): TableField => ({ kind: 'column', column: name })

/** The current mapping of each distinct id to its person. */
const distinctIdsSql = (team: string) =>
  `SELECT __d.distinct_id AS distinct_id, argMax(__d.person_id, __d.version) AS person_id
    FROM person_distinct_id2 AS __d WHERE __d.team_id = ${team}
    GROUP BY __d.distinct_id HAVING argMax(__d.is_deleted, __d.version) = 0`

/** The latest version of each person that is not deleted. */
const personsSql = (team: string, tz: string) =>
  `SELECT __p.id AS id, toTimeZone(argMax(__p.created_at, __p.version), ${tz}) AS created_at,
      argMax(__p.properties, __p.version) AS properties, argMax(__p.is_identified, __p.version) AS is_identified,
      any(__p.team_id) AS team_id
    FROM person AS __p WHERE __p.team_id = ${team}
    GROUP BY __p.id HAVING argMax(__p.is_deleted, __p.version) = 0`

const EVENTS: VirtualTable = {
  name: 'events',
  fields: {
    uuid: column('uuid'),
    event: column('event'),
    properties: { kind: 'json', column: 'properties' },
    timestamp: column('timestamp'),
    team_id: column('team_id'),
    distinct_id: column('distinct_id'),
    elements_chain: column('elements_chain'),
    created_at: column('created_at'),
    $session_id: column('$session_id'),
    $window_id: column('$window_id'),
    person_id: column('person_id'),
    person: { kind: 'person' },
    ...Object.fromEntries(GROUP_COLUMNS.map((c) => [c, column(c)])),
  },
  star: [
    'uuid',
    'event',
    'properties',
    'timestamp',
    'distinct_id',
    'elements_chain',
    'created_at',
    '$session_id',
    '$window_id',
    'person_id',
    ...GROUP_COLUMNS,
  ],
  sql(needs, team, tz) {
    // No FINAL: the events table is read as stored.
    const joinIds = needs.personId || needs.person
    const personId = joinIds ? `if(__pdi.distinct_id = '', __e.person_id, __pdi.person_id)` : '__e.person_id'
    const events = `SELECT __e.uuid AS uuid, __e.event AS event, __e.properties AS properties,
        toTimeZone(__e.timestamp, ${tz}) AS timestamp, __e.team_id AS team_id, __e.distinct_id AS distinct_id,
        __e.elements_chain AS elements_chain, toTimeZone(__e.created_at, ${tz}) AS created_at,
        JSONExtractString(__e.properties, '$session_id') AS \`$session_id\`,
        JSONExtractString(__e.properties, '$window_id') AS \`$window_id\`,
        ${GROUP_COLUMNS.map((c) => `__e.\`${c}\` AS \`${c}\``).join(', ')},
        ${personId} AS person_id
      FROM events AS __e
      ${joinIds ? `LEFT JOIN (${distinctIdsSql(team)}) AS __pdi ON __pdi.distinct_id = __e.distinct_id` : ''}
      WHERE __e.team_id = ${team}`
    if (!needs.person) return events
    return `SELECT __ep.*, __pp.properties AS person_properties, __pp.created_at AS person_created_at,
        __pp.is_identified AS person_is_identified
      FROM (${events}) AS __ep
      LEFT JOIN (${personsSql(team, tz)}) AS __pp ON __pp.id = __ep.person_id`
  },
}

const PERSONS: VirtualTable = {
  name: 'persons',
  fields: {
    id: column('id'),
    created_at: column('created_at'),
    properties: { kind: 'json', column: 'properties' },
    is_identified: column('is_identified'),
    team_id: column('team_id'),
  },
  star: ['id', 'created_at', 'properties', 'is_identified'],
  sql: (_needs, team, tz) => personsSql(team, tz),
}

const PERSON_DISTINCT_IDS: VirtualTable = {
  name: 'person_distinct_ids',
  fields: { distinct_id: column('distinct_id'), person_id: column('person_id') },
  star: ['distinct_id', 'person_id'],
  sql: (_needs, team) => distinctIdsSql(team),
}

/**
 * Cohort members as of each cohort's latest calculation (the highest version stored for it): a
 * calculation writes all of its members under a new version.
 */
const COHORT_PEOPLE: VirtualTable = {
  name: 'cohort_people',
  fields: { person_id: column('person_id'), cohort_id: column('cohort_id') },
  star: ['person_id', 'cohort_id'],
  sql: (_needs, team) =>
    `SELECT __c.person_id AS person_id, __c.cohort_id AS cohort_id FROM cohortpeople AS __c
      WHERE __c.team_id = ${team} AND (__c.cohort_id, __c.version) IN
        (SELECT cohort_id, max(version) FROM cohortpeople WHERE team_id = ${team} GROUP BY cohort_id)`,
}

export const TABLES: ReadonlyMap<string, VirtualTable> = new Map(
  [EVENTS, PERSONS, PERSON_DISTINCT_IDS, COHORT_PEOPLE].map((t) => [t.name, t]),
)
