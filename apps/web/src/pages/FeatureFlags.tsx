import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { useState } from 'react'
import { errorWords, trpc } from '../api'
import { SearchForm } from '../components/SearchForm'
import { DataTable } from '../components/DataTable'
import { ListStates } from '../components/States'

/** The rollout of a flag's first condition set, as the list shows it. */
function rolloutOf(filters: Record<string, unknown>): string {
  const groups = filters.groups
  if (!Array.isArray(groups) || groups.length === 0) return '—'
  const first = groups[0] as { rollout_percentage?: number | null; properties?: unknown[] }
  const rollout = first.rollout_percentage ?? 100
  const conditions = Array.isArray(first.properties) && first.properties.length > 0 ? ' of matching users' : ''
  return `${rollout}%${conditions}${groups.length > 1 ? ` (+${groups.length - 1} more)` : ''}`
}

/** `/project/:id/feature_flags`: the flags, a search kept in the URL, a new flag, and each one switched on or off. */
export function FeatureFlags(): React.JSX.Element {
  const { projectId } = useParams({ from: '/project/$projectId/feature_flags' })
  const { search } = useSearch({ from: '/project/$projectId/feature_flags' })
  const navigate = useNavigate({ from: '/project/$projectId/feature_flags' })
  const queryClient = useQueryClient()
  const key = ['feature-flags', projectId, search]
  const flags = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => trpc.featureFlags.list.query({ project_id: projectId, limit: 100, ...(search ? { search } : {}) }, { signal }),
  })
  const toggle = useMutation({
    mutationFn: ({ id, active }: { id: number; active: boolean }) =>
      trpc.featureFlags.update.mutate({ project_id: projectId, id: String(id), data: { active } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['feature-flags', projectId] }),
  })
  return (
    <>
      <h1>Feature flags</h1>
      <NewFlagForm projectId={projectId} onCreated={() => void queryClient.invalidateQueries({ queryKey: ['feature-flags', projectId] })} />
      <SearchForm label="Search flags" value={search} onSearch={(value) => void navigate({ search: { search: value } })} />
      <ListStates
        query={flags}
        what="feature flags"
        rowsOf={(data) => data.results}
        empty={<p>{search ? 'No flag matches this search.' : 'No feature flags yet. Create one above.'}</p>}
      >
        {(data) => (
          <DataTable
            label="Feature flags"
            rows={data.results}
            rowKey={(flag) => flag.id}
            columns={[
              { header: 'Key', cell: (flag) => <code>{flag.key}</code> },
              { header: 'Description', cell: (flag) => flag.name },
              { header: 'Rollout', cell: (flag) => rolloutOf(flag.filters) },
              {
                header: 'Enabled',
                cell: (flag) => (
                  <label className="row">
                    <input
                      type="checkbox"
                      role="switch"
                      checked={flag.active}
                      disabled={toggle.isPending}
                      onChange={(e) => toggle.mutate({ id: flag.id, active: e.target.checked })}
                    />
                    <span className="visually-hidden">{flag.key} enabled</span>
                  </label>
                ),
              },
            ]}
          />
        )}
      </ListStates>
      {toggle.isError && (
        <p className="error" role="alert">
          {errorWords(toggle.error)}
        </p>
      )}
    </>
  )
}

function NewFlagForm({ projectId, onCreated }: { projectId: string; onCreated: () => void }) {
  const [key, setKey] = useState('')
  const [name, setName] = useState('')
  const [rollout, setRollout] = useState('100')
  const create = useMutation({
    mutationFn: () =>
      trpc.featureFlags.create.mutate({
        project_id: projectId,
        key: key.trim(),
        name,
        filters: { groups: [{ properties: [], rollout_percentage: Number(rollout) }] },
      }),
    onSuccess: () => {
      setKey('')
      setName('')
      setRollout('100')
      onCreated()
    },
  })
  return (
    <form
      className="toolbar notice"
      aria-label="New feature flag"
      onSubmit={(e) => {
        e.preventDefault()
        create.mutate()
      }}
    >
      <label className="field">
        <span>Key</span>
        <input required value={key} onChange={(e) => setKey(e.target.value)} placeholder="new-checkout" />
      </label>
      <label className="field">
        <span>Description</span>
        <input value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label className="field">
        <span>Rollout (% of users)</span>
        <input type="number" min={0} max={100} required value={rollout} onChange={(e) => setRollout(e.target.value)} />
      </label>
      <button type="submit" className="primary" disabled={create.isPending}>
        Create flag
      </button>
      {create.isError && (
        <p className="error" role="alert">
          {errorWords(create.error)}
        </p>
      )}
    </form>
  )
}
