import type { EarlyAccessFeature } from '@burrow/contracts'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useParams } from '@tanstack/react-router'
import { useState } from 'react'
import { trpc } from '../api'
import { DataTable } from '../components/DataTable'
import { Dialog } from '../components/Dialog'
import { ListStates, Refusal } from '../components/States'

const FROM = '/project/$projectId/early_access_features'

type Stage = EarlyAccessFeature['stage']

/** Each stage as the page names it. */
const STAGE_LABELS: Record<Stage, string> = {
  draft: 'Draft',
  concept: 'Concept',
  alpha: 'Alpha',
  beta: 'Beta',
  'general-availability': 'General availability',
  archived: 'Archived',
}
const STAGES = Object.keys(STAGE_LABELS) as Stage[]

/**
 * `/project/:id/early_access_features`: the features people may opt into (posthog-js's
 * getEarlyAccessFeatures), each with its stage and the flag that gates it; a new feature, a
 * feature moved to another stage, and one deleted after a confirmation.
 */
export function EarlyAccessFeatures(): React.JSX.Element {
  const { projectId } = useParams({ from: FROM })
  const queryClient = useQueryClient()
  const [removing, setRemoving] = useState<Pick<EarlyAccessFeature, 'id' | 'name'> | undefined>()
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['early-access-features', projectId] })
  const features = useQuery({
    queryKey: ['early-access-features', projectId],
    queryFn: ({ signal }) => trpc.earlyAccessFeatures.list.query({ project_id: projectId, limit: 100 }, { signal }),
  })
  const setStage = useMutation({
    mutationFn: ({ id, stage }: { id: string; stage: Stage }) =>
      trpc.earlyAccessFeatures.update.mutate({ project_id: projectId, id, data: { stage } }),
    onSuccess: refresh,
  })
  const remove = useMutation({
    mutationFn: (id: string) => trpc.earlyAccessFeatures.delete.mutate({ project_id: projectId, id }),
    onSuccess: () => {
      setRemoving(undefined)
      refresh()
    },
  })
  return (
    <>
      <h1>Early access</h1>
      <p className="muted">
        Features people may opt into before everyone gets them. posthog-js shows those in beta; each has a feature flag that turns on for
        whoever opts in.
      </p>
      <NewFeatureForm projectId={projectId} onCreated={refresh} />
      <ListStates
        query={features}
        what="early access features"
        rowsOf={(data) => data.results}
        empty={<p>No early access features yet. Create one above.</p>}
      >
        {(data) => (
          <DataTable
            label="Early access features"
            rows={data.results}
            rowKey={(feature) => feature.id}
            columns={[
              { header: 'Name', cell: (f) => f.name },
              { header: 'Description', cell: (f) => f.description || <span className="muted">—</span> },
              {
                header: 'Stage',
                cell: (f) => (
                  <select
                    aria-label={`Stage of ${f.name}`}
                    value={f.stage}
                    disabled={setStage.isPending}
                    onChange={(e) => setStage.mutate({ id: f.id, stage: e.target.value as Stage })}
                  >
                    {STAGES.map((stage) => (
                      <option key={stage} value={stage}>
                        {STAGE_LABELS[stage]}
                      </option>
                    ))}
                  </select>
                ),
              },
              { header: 'Flag key', cell: (f) => (f.feature_flag ? <code>{f.feature_flag.key}</code> : <span className="muted">—</span>) },
              {
                header: <span className="visually-hidden">Actions</span>,
                cell: (f) => (
                  <button type="button" aria-label={`Delete ${f.name}`} onClick={() => setRemoving(f)}>
                    Delete
                  </button>
                ),
              },
            ]}
          />
        )}
      </ListStates>
      {setStage.isError && <Refusal error={setStage.error} />}
      <Dialog
        open={removing !== undefined}
        title={removing ? `Delete ${removing.name}?` : 'Delete feature?'}
        onClose={() => {
          setRemoving(undefined)
          remove.reset()
        }}
      >
        {removing && (
          <div className="stack">
            <p>People will no longer be offered {removing.name}. Its feature flag stays.</p>
            <div className="row">
              <button type="button" className="primary" disabled={remove.isPending} onClick={() => remove.mutate(removing.id)}>
                Delete
              </button>
            </div>
            {remove.isError && <Refusal error={remove.error} />}
          </div>
        )}
      </Dialog>
    </>
  )
}

function NewFeatureForm({ projectId, onCreated }: { projectId: string; onCreated: () => void }) {
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [stage, setStage] = useState<Stage>('beta')
  const create = useMutation({
    mutationFn: () => trpc.earlyAccessFeatures.create.mutate({ project_id: projectId, name: name.trim(), description, stage }),
    onSuccess: () => {
      setName('')
      setDescription('')
      setStage('beta')
      onCreated()
    },
  })
  return (
    <form
      className="toolbar notice"
      aria-label="New early access feature"
      onSubmit={(e) => {
        e.preventDefault()
        create.mutate()
      }}
    >
      <label className="field">
        <span>Name</span>
        <input required value={name} onChange={(e) => setName(e.target.value)} placeholder="New checkout" />
      </label>
      <label className="field">
        <span>Description</span>
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <label className="field">
        <span>Stage</span>
        <select value={stage} onChange={(e) => setStage(e.target.value as Stage)}>
          {STAGES.map((s) => (
            <option key={s} value={s}>
              {STAGE_LABELS[s]}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="primary" disabled={create.isPending}>
        Create feature
      </button>
      {create.isError && <Refusal error={create.error} />}
    </form>
  )
}
