import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { useState } from 'react'
import { trpc } from '../api'
import { SearchForm } from '../components/SearchForm'
import { DataTable } from '../components/DataTable'
import { Pager } from '../components/Pager'
import { PersonsTable } from '../components/PersonsTable'
import { DeleteButton } from '../components/Dialog'
import { Empty, ErrorNotice, ListStates, Loading } from '../components/States'

/** People a page of the list shows. */
const PAGE = 100

/** `/project/:id/persons`: people, searched by email, name or distinct id, a page at a time (both kept in the URL). */
export function Persons(): React.JSX.Element {
  const { projectId } = useParams({ from: '/project/$projectId/persons' })
  const { search, offset = 0 } = useSearch({ from: '/project/$projectId/persons' })
  const navigate = useNavigate({ from: '/project/$projectId/persons' })
  const persons = useQuery({
    queryKey: ['persons', projectId, search, offset],
    queryFn: ({ signal }) =>
      trpc.persons.list.query({ project_id: projectId, limit: PAGE, offset, ...(search ? { search } : {}) }, { signal }),
  })
  return (
    <>
      <h1>People</h1>
      <SearchForm
        label="Search by email, name or distinct id"
        value={search}
        onSearch={(value) => void navigate({ search: { search: value } })}
      />
      <ListStates
        query={persons}
        what="people"
        rowsOf={(data) => data.results}
        empty={
          offset > 0 ? (
            <p>
              No one on this page.{' '}
              <Link to="/project/$projectId/persons" params={{ projectId }} search={{ search }}>
                The first page
              </Link>
            </p>
          ) : (
            <p>{search ? 'Nobody matches this search.' : 'No people yet: a person is made with their first event.'}</p>
          )
        }
      >
        {(data) => (
          <>
            <PersonsTable label="People" projectId={projectId} persons={data.results} withEvents />
            <Pager
              what="people"
              offset={offset}
              limit={PAGE}
              shown={data.results.length}
              count={data.count}
              onOffset={(next) => void navigate({ search: { search, offset: next || undefined } })}
            />
          </>
        )}
      </ListStates>
    </>
  )
}

/** How many of a person's newest events their page lists. */
const RECENT_EVENTS = 20

/** A property's value as text: strings as they are, anything else as its JSON. */
const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value))

/**
 * `/project/:id/persons/:id` (its id or uuid): a person's properties, distinct ids, cohorts and
 * newest events, and their deletion after a confirmation.
 */
export function PersonPage(): React.JSX.Element {
  const { projectId, personId } = useParams({ from: '/project/$projectId/persons/$personId' })
  const navigate = useNavigate({ from: '/project/$projectId/persons/$personId' })
  const queryClient = useQueryClient()
  const [deleteEvents, setDeleteEvents] = useState(false)
  const person = useQuery({
    queryKey: ['person', projectId, personId],
    queryFn: ({ signal }) => trpc.persons.get.query({ project_id: projectId, id: personId }, { signal }),
  })
  const events = useQuery({
    queryKey: ['person-events', projectId, personId],
    queryFn: ({ signal }) => trpc.events.list.query({ project_id: projectId, person_id: personId, limit: RECENT_EVENTS }, { signal }),
  })
  const cohorts = useQuery({
    queryKey: ['person-cohorts', projectId, personId],
    queryFn: ({ signal }) => trpc.persons.cohorts.query({ project_id: projectId, person_id: personId }, { signal }),
  })
  const remove = useMutation({
    mutationFn: () => trpc.persons.delete.mutate({ project_id: projectId, id: personId, delete_events: deleteEvents }),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['person', projectId, personId] })
      await queryClient.invalidateQueries({ queryKey: ['persons', projectId] })
      await navigate({ to: '/project/$projectId/persons', params: { projectId }, search: {} })
    },
  })
  if (person.isPending) return <Loading what="the person" />
  if (person.isError) return <ErrorNotice error={person.error} retry={() => void person.refetch()} />
  const data = person.data
  const properties = Object.entries(data.properties).sort(([a], [b]) => a.localeCompare(b))
  return (
    <>
      <div className="row spread">
        <h1>{data.name}</h1>
        <div className="row">
          <Link to="/project/$projectId/persons" params={{ projectId }} search={{}}>
            All people
          </Link>
          <DeleteButton noun="person" deletion={remove}>
            <p>
              {data.name} and their distinct ids are removed; a later event of one of those ids makes a new person. This cannot be undone.
            </p>
            <label className="row">
              <input type="checkbox" checked={deleteEvents} onChange={(e) => setDeleteEvents(e.target.checked)} />
              <span>Also delete their events</span>
            </label>
          </DeleteButton>
        </div>
      </div>
      <p className="muted">
        {data.is_identified ? 'Identified' : 'Anonymous'} · first seen {new Date(data.created_at).toLocaleString()}
      </p>
      <h2>Distinct ids</h2>
      <ul>
        {data.distinct_ids.map((id) => (
          <li key={id}>
            <code>{id}</code>
          </li>
        ))}
      </ul>
      <h2>Properties</h2>
      {properties.length === 0 ? (
        <Empty>
          <p>No properties yet: they come with events' $set and $set_once.</p>
        </Empty>
      ) : (
        <DataTable
          label="Properties"
          rows={properties}
          rowKey={([key]) => key}
          columns={[
            { header: 'Property', cell: ([key]) => <code>{key}</code> },
            { header: 'Value', cell: ([, value]) => shown(value) },
          ]}
        />
      )}
      <h2>Cohorts</h2>
      <ListStates
        query={cohorts}
        what="their cohorts"
        rowsOf={(answer) => answer.results}
        empty={<p>In no cohort, as of each cohort's latest calculation.</p>}
      >
        {(answer) => (
          <DataTable
            label="Cohorts"
            rows={answer.results}
            rowKey={(cohort) => cohort.id}
            columns={[
              {
                header: 'Cohort',
                cell: (cohort) => (
                  <Link to="/project/$projectId/cohorts/$cohortId" params={{ projectId, cohortId: String(cohort.id) }}>
                    {cohort.name || `Cohort ${cohort.id}`}
                  </Link>
                ),
              },
              { header: 'Persons', cell: (cohort) => cohort.count ?? '—' },
            ]}
          />
        )}
      </ListStates>
      <div className="row spread">
        <h2>Recent events</h2>
        {data.distinct_ids[0] !== undefined && (
          <Link to="/project/$projectId/events" params={{ projectId }} search={{ distinct_id: data.distinct_ids[0] }}>
            All events of {data.distinct_ids[0]}
          </Link>
        )}
      </div>
      <ListStates query={events} what="their events" rowsOf={(page) => page.results} empty={<p>No events of this person yet.</p>}>
        {(page) => (
          <DataTable
            label="Recent events"
            rows={page.results}
            rowKey={(event) => event.id}
            columns={[
              { header: 'Event', cell: (event) => event.event },
              { header: 'Distinct id', cell: (event) => <code>{event.distinct_id}</code> },
              { header: 'Time', cell: (event) => new Date(event.timestamp).toLocaleString() },
            ]}
          />
        )}
      </ListStates>
    </>
  )
}
