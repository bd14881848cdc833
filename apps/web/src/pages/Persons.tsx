import { useQuery } from '@tanstack/react-query'
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { trpc } from '../api'
import { SearchForm } from '../components/SearchForm'
import { DataTable } from '../components/DataTable'
import { ListStates } from '../components/States'

/** `/project/:id/persons`: people, searched by email, name or distinct id (kept in the URL). */
export function Persons(): React.JSX.Element {
  const { projectId } = useParams({ from: '/project/$projectId/persons' })
  const { search } = useSearch({ from: '/project/$projectId/persons' })
  const navigate = useNavigate({ from: '/project/$projectId/persons' })
  const persons = useQuery({
    queryKey: ['persons', projectId, search],
    queryFn: ({ signal }) => trpc.persons.list.query({ project_id: projectId, limit: 100, ...(search ? { search } : {}) }, { signal }),
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
        empty={<p>{search ? 'Nobody matches this search.' : 'No people yet: a person is made with their first event.'}</p>}
      >
        {(data) => (
          <DataTable
            label="People"
            rows={data.results}
            rowKey={(person) => person.uuid}
            columns={[
              { header: 'Person', cell: (person) => person.name },
              {
                header: 'Distinct ids',
                cell: (person) => (
                  <>
                    <code>{person.distinct_ids.slice(0, 3).join(', ')}</code>
                    {person.distinct_ids.length > 3 && <span className="muted"> and {person.distinct_ids.length - 3} more</span>}
                  </>
                ),
              },
              { header: 'First seen', cell: (person) => new Date(person.created_at).toLocaleString() },
              {
                header: <span className="visually-hidden">Events</span>,
                cell: (person) => (
                  <Link to="/project/$projectId/events" params={{ projectId }} search={{ distinct_id: person.distinct_ids[0] }}>
                    Events<span className="visually-hidden"> of {person.name}</span>
                  </Link>
                ),
              },
            ]}
          />
        )}
      </ListStates>
    </>
  )
}
