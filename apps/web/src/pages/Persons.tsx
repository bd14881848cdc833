import { useQuery } from '@tanstack/react-query'
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { trpc } from '../api'
import { SearchForm } from '../components/SearchForm'
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
          <div className="table-wrap">
            <table aria-label="People">
              <thead>
                <tr>
                  <th scope="col">Person</th>
                  <th scope="col">Distinct ids</th>
                  <th scope="col">First seen</th>
                  <th scope="col">
                    <span className="visually-hidden">Events</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.results.map((person) => (
                  <tr key={person.uuid}>
                    <td>{person.name}</td>
                    <td>
                      <code>{person.distinct_ids.slice(0, 3).join(', ')}</code>
                      {person.distinct_ids.length > 3 && <span className="muted"> and {person.distinct_ids.length - 3} more</span>}
                    </td>
                    <td>{new Date(person.created_at).toLocaleString()}</td>
                    <td>
                      <Link to="/project/$projectId/events" params={{ projectId }} search={{ distinct_id: person.distinct_ids[0] }}>
                        Events<span className="visually-hidden"> of {person.name}</span>
                      </Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListStates>
    </>
  )
}
