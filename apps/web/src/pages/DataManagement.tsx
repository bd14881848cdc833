import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { useState } from 'react'
import { trpc } from '../api'
import { DataManagementNav } from '../components/DataManagementNav'
import { DataTable } from '../components/DataTable'
import { Dialog } from '../components/Dialog'
import { EventDefinitionForm, type Definition } from '../components/EventDefinitionForm'
import { SearchForm } from '../components/SearchForm'
import { ListStates } from '../components/States'

const FROM = '/project/$projectId/data-management'

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const count = new Intl.NumberFormat('en-US')

/**
 * `/project/:id/data-management`: the project's event definitions (every event name it has
 * stored) with their description, tags, verification, last sighting and 30-day volume; a search
 * kept in the URL (`?search=`); each one's description, tags and verification edited in a dialog.
 */
export function DataManagement(): React.JSX.Element {
  const { projectId } = useParams({ from: FROM })
  const { search } = useSearch({ from: FROM })
  const navigate = useNavigate({ from: FROM })
  const queryClient = useQueryClient()
  const [editing, setEditing] = useState<Definition | undefined>()
  const definitions = useQuery({
    queryKey: ['event-definitions', projectId, search],
    queryFn: ({ signal }) =>
      trpc.eventDefinitions.list.query({ project_id: projectId, limit: 100, ...(search ? { search } : {}) }, { signal }),
  })
  return (
    <>
      <h1>Data management</h1>
      <DataManagementNav projectId={projectId} />
      <p className="muted">The events this project has received, each described, tagged and verified for everyone who queries them.</p>
      <SearchForm label="Search events" value={search} onSearch={(value) => void navigate({ search: { search: value } })} />
      <ListStates
        query={definitions}
        what="event definitions"
        rowsOf={(data) => data.results}
        empty={
          <p>
            {search
              ? 'No event matches this search.'
              : 'No events yet. Each event name appears here once the project receives it, from posthog-js or the capture API.'}
          </p>
        }
      >
        {(data) => (
          <>
            {data.count > data.results.length && (
              <p className="muted">
                The first {data.results.length} of {count.format(data.count)} events: search to find the others.
              </p>
            )}
            <DataTable
              label="Event definitions"
              rows={data.results}
              rowKey={(definition) => definition.id}
              columns={[
                { header: 'Event', cell: (d) => <code>{d.name}</code> },
                { header: 'Description', cell: (d) => d.description || <span className="muted">—</span> },
                {
                  header: 'Tags',
                  cell: (d) =>
                    d.tags.length ? (
                      <ul className="tags" aria-label={`Tags of ${d.name}`}>
                        {d.tags.map((tag) => (
                          <li key={tag}>{tag}</li>
                        ))}
                      </ul>
                    ) : (
                      <span className="muted">—</span>
                    ),
                },
                { header: 'Verified', cell: (d) => (d.verified ? 'Verified' : <span className="muted">No</span>) },
                { header: 'Last seen', cell: (d) => (d.last_seen_at ? timeFormat.format(new Date(d.last_seen_at)) : 'never') },
                { header: '30-day volume', cell: (d) => (d.volume_30_day === null ? '—' : count.format(d.volume_30_day)) },
                {
                  header: <span className="visually-hidden">Actions</span>,
                  cell: (d) => (
                    <button type="button" onClick={() => setEditing(d)} aria-label={`Edit ${d.name}`}>
                      Edit
                    </button>
                  ),
                },
              ]}
            />
          </>
        )}
      </ListStates>
      <Dialog open={editing !== undefined} title={editing ? `Edit ${editing.name}` : 'Edit event'} onClose={() => setEditing(undefined)}>
        {editing && (
          <EventDefinitionForm
            definition={editing}
            save={(data) => trpc.eventDefinitions.update.mutate({ project_id: projectId, id: editing.id, data })}
            onSaved={() => {
              setEditing(undefined)
              void queryClient.invalidateQueries({ queryKey: ['event-definitions', projectId] })
            }}
          />
        )}
      </Dialog>
    </>
  )
}
