import { Link } from '@tanstack/react-router'
import { DataTable } from './DataTable'

/** What a row of people shows of a person, as the persons API answers it. */
interface PersonRow {
  uuid: string
  name: string
  distinct_ids: readonly string[]
  created_at: string
}

/** Distinct ids shown in a row before "and N more". */
const SHOWN_IDS = 3

/**
 * A table of people, each linked to their page: their first distinct ids and when they were
 * first seen, and with `withEvents` a link to their events.
 */
export function PersonsTable({
  label,
  projectId,
  persons,
  withEvents = false,
}: {
  label: string
  projectId: string
  persons: readonly PersonRow[]
  withEvents?: boolean
}) {
  return (
    <DataTable
      label={label}
      rows={persons}
      rowKey={(person) => person.uuid}
      columns={[
        {
          header: 'Person',
          cell: (person) => (
            <Link to="/project/$projectId/persons/$personId" params={{ projectId, personId: person.uuid }}>
              {person.name}
            </Link>
          ),
        },
        {
          header: 'Distinct ids',
          cell: (person) => (
            <>
              <code>{person.distinct_ids.slice(0, SHOWN_IDS).join(', ')}</code>
              {person.distinct_ids.length > SHOWN_IDS && <span className="muted"> and {person.distinct_ids.length - SHOWN_IDS} more</span>}
            </>
          ),
        },
        { header: 'First seen', cell: (person) => new Date(person.created_at).toLocaleString() },
        ...(withEvents
          ? [
              {
                header: <span className="visually-hidden">Events</span>,
                cell: (person: PersonRow) => (
                  <Link to="/project/$projectId/events" params={{ projectId }} search={{ distinct_id: person.distinct_ids[0] }}>
                    Events<span className="visually-hidden"> of {person.name}</span>
                  </Link>
                ),
              },
            ]
          : []),
      ]}
    />
  )
}
