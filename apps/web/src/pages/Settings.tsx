import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useParams } from '@tanstack/react-router'
import { useState } from 'react'
import { trpc } from '../api'
import { DataTable } from '../components/DataTable'
import { Members } from '../components/Members'
import { ErrorNotice, ListStates, Loading, Refusal } from '../components/States'
import { SCOPE_OBJECTS, scopesFrom, type ScopeAccess } from '../scopes'

/** `/project/:id/settings`: the project's token and snippet, the user's personal API keys, and the organization's members and invites. */
export function Settings(): React.JSX.Element {
  const { projectId } = useParams({ from: '/project/$projectId/settings' })
  return (
    <>
      <h1>Settings</h1>
      <ProjectToken projectId={projectId} />
      <PersonalApiKeys />
      <Members />
    </>
  )
}

function ProjectToken({ projectId }: { projectId: string }) {
  const project = useQuery({
    queryKey: ['project', projectId],
    queryFn: ({ signal }) => trpc.projects.get.query({ id: projectId }, { signal }),
  })
  if (project.isPending) return <Loading what="the project" />
  if (project.isError) return <ErrorNotice error={project.error} retry={() => void project.refetch()} />
  const host = window.location.origin
  const token = project.data.api_token
  const snippet = `<script src="${host}/static/array.js"></script>
<script>
  posthog.init('${token}', { api_host: '${host}', person_profiles: 'identified_only' })
</script>`
  const node = `import { PostHog } from 'posthog-node'
const posthog = new PostHog('${token}', { host: '${host}' })`
  return (
    <section aria-labelledby="project-heading">
      <h2 id="project-heading">Project “{project.data.name}”</h2>
      <p>
        Project API token: <code data-testid="project-token">{token}</code>
      </p>
      <p className="muted">The token only sends events and reads flags; it is safe to put in a web page.</p>
      <h3>posthog-js on your site</h3>
      <pre aria-label="posthog-js snippet">{snippet}</pre>
      <h3>posthog-node on your server</h3>
      <pre aria-label="posthog-node snippet">{node}</pre>
    </section>
  )
}

function PersonalApiKeys() {
  const queryClient = useQueryClient()
  const keys = useQuery({
    queryKey: ['personal-api-keys'],
    queryFn: ({ signal }) => trpc.personalApiKeys.list.query(undefined, { signal }),
  })
  const revoke = useMutation({
    mutationFn: (id: string) => trpc.personalApiKeys.delete.mutate({ id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['personal-api-keys'] }),
  })
  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">Personal API keys</h2>
      <p className="muted">A key acts as you on the API, limited to its scopes. It is shown once, when it is made.</p>
      <NewKeyForm onCreated={() => void queryClient.invalidateQueries({ queryKey: ['personal-api-keys'] })} />
      <ListStates query={keys} what="your keys" rowsOf={(data) => data} empty={<p>You have no personal API keys.</p>}>
        {(data) => (
          <DataTable
            label="Personal API keys"
            rows={data}
            rowKey={(key) => key.id}
            columns={[
              { header: 'Label', cell: (key) => key.label },
              { header: 'Key', cell: (key) => <code>{key.mask_value}</code> },
              { header: 'Scopes', cell: (key) => key.scopes.join(', ') },
              { header: 'Last used', cell: (key) => (key.last_used_at ? new Date(key.last_used_at).toLocaleString() : 'never') },
              {
                header: <span className="visually-hidden">Actions</span>,
                cell: (key) => (
                  <button
                    type="button"
                    className="danger"
                    disabled={revoke.isPending}
                    onClick={() => {
                      if (window.confirm(`Revoke the key “${key.label}”? Whatever uses it stops working at once.`)) revoke.mutate(key.id)
                    }}
                  >
                    Revoke<span className="visually-hidden"> {key.label}</span>
                  </button>
                ),
              },
            ]}
          />
        )}
      </ListStates>
      {revoke.isError && <Refusal error={revoke.error} />}
    </section>
  )
}

function NewKeyForm({ onCreated }: { onCreated: () => void }) {
  const [label, setLabel] = useState('')
  const [all, setAll] = useState(false)
  const [access, setAccess] = useState<Partial<Record<string, ScopeAccess>>>({})
  const create = useMutation({
    mutationFn: () => trpc.personalApiKeys.create.mutate({ label, scopes: scopesFrom(all, access) }),
    onSuccess: () => {
      setLabel('')
      setAccess({})
      setAll(false)
      onCreated()
    },
  })
  return (
    <form
      className="notice"
      aria-labelledby="new-key-heading"
      onSubmit={(e) => {
        e.preventDefault()
        create.mutate()
      }}
    >
      <h3 id="new-key-heading">New key</h3>
      <div className="stack">
        <label className="field">
          <span>Label</span>
          <input required maxLength={40} value={label} onChange={(e) => setLabel(e.target.value)} />
        </label>
        <label className="row">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} />
          All access (every scope, reading and writing)
        </label>
        {!all && (
          <fieldset>
            <legend>Scopes</legend>
            <div className="table-wrap">
              <table>
                <tbody>
                  {SCOPE_OBJECTS.map(([object, name]) => (
                    <tr key={object}>
                      <th scope="row">{name}</th>
                      <td>
                        <select
                          aria-label={`${name} access`}
                          value={access[object] ?? 'none'}
                          onChange={(e) => setAccess({ ...access, [object]: e.target.value as ScopeAccess })}
                        >
                          <option value="none">No access</option>
                          <option value="read">Read</option>
                          <option value="write">Read and write</option>
                        </select>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </fieldset>
        )}
        <div>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create key
          </button>
        </div>
        {create.isError && <Refusal error={create.error} />}
        {create.data?.value && (
          <div role="status">
            <p>
              Your new key “{create.data.label}”. Copy it now: <strong>it is not shown again</strong>.
            </p>
            <code className="secret" data-testid="new-key">
              {create.data.value}
            </code>
          </div>
        )}
      </div>
    </form>
  )
}
