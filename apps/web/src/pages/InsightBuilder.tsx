import { useMutation, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { useState } from 'react'
import { trpc } from '../api'
import { BuilderForm } from '../components/BuilderForm'
import { ActorsDialog } from '../components/InsightActors'
import { InsightResult } from '../components/InsightResult'
import { ErrorNotice, Loading, Refusal } from '../components/States'
import { useMe } from '../hooks'
import type { ChosenPoint } from '../insightActors'
import { useActionChoices, useCohortChoices, useDashboards, useInsightByShortId, useInsightResult } from '../insightHooks'
import {
  formOf,
  parseQueryParam,
  queryOf,
  sourceOfInsight,
  undrawnInsight,
  type BuilderForm as Form,
  type InsightSource,
} from '../insightQuery'

type InsightWrite = Parameters<typeof trpc.insights.create.mutate>[0]

/** An insight's `query` as PostHog keeps it: the runnable query inside an InsightVizNode. */
const vizNode = (source: InsightSource) => ({ kind: 'InsightVizNode', source }) as unknown as NonNullable<InsightWrite['query']>

/** `/project/:id/insights/new`: the builder, its query in the URL (`?q=`), and saving it as an insight. */
export function NewInsight(): React.JSX.Element {
  const { projectId } = useParams({ from: '/project/$projectId/insights/new' })
  const { q } = useSearch({ from: '/project/$projectId/insights/new' })
  const navigate = useNavigate({ from: '/project/$projectId/insights/new' })
  const source = parseQueryParam(q) ?? queryOf(formOf(undefined))
  return (
    <Builder
      projectId={projectId}
      title="New insight"
      source={source}
      onChange={(next) => void navigate({ search: { q: next }, replace: true })}
      actions={<SaveNew projectId={projectId} source={source} />}
    />
  )
}

/** `/project/:id/insights/:shortId`: a saved insight, edited in place, added to dashboards. */
export function SavedInsight(): React.JSX.Element {
  const { projectId, shortId } = useParams({ from: '/project/$projectId/insights/$shortId' })
  const { q } = useSearch({ from: '/project/$projectId/insights/$shortId' })
  const navigate = useNavigate({ from: '/project/$projectId/insights/$shortId' })
  const insight = useInsightByShortId(projectId, shortId)
  if (insight.isPending) return <Loading what="the insight" />
  if (insight.isError) return <ErrorNotice error={insight.error} retry={() => void insight.refetch()} />
  const saved = sourceOfInsight(insight.data.query)
  const source = parseQueryParam(q) ?? saved
  if (!source) return <p className="notice">{undrawnInsight(insight.data.query)}</p>
  const edited = source !== saved && JSON.stringify(source) !== JSON.stringify(saved)
  return (
    <Builder
      projectId={projectId}
      title={insight.data.name || insight.data.derived_name || 'Untitled'}
      source={source}
      onChange={(next) => void navigate({ search: { q: next }, replace: true })}
      actions={
        <>
          <SaveChanges projectId={projectId} id={insight.data.id} source={source} edited={edited} />
          <AddToDashboard projectId={projectId} id={insight.data.id} on={insight.data.dashboards} />
          <DeleteInsight projectId={projectId} id={insight.data.id} />
        </>
      }
    />
  )
}

function Builder({
  projectId,
  title,
  source,
  onChange,
  actions,
}: {
  projectId: string
  title: string
  source: InsightSource
  onChange: (next: InsightSource) => void
  actions: React.ReactNode
}) {
  const eventNames = useMe().data?.team?.event_names ?? []
  const actionChoices = useActionChoices(projectId)
  const cohortChoices = useCohortChoices(projectId)
  // A refresh computes this query anew; the next query asks the cache again.
  const sourceKey = JSON.stringify(source)
  const [refreshed, setRefreshed] = useState({ key: '', count: 0 })
  const refresh = refreshed.key === sourceKey ? refreshed.count : 0
  const result = useInsightResult(projectId, source, refresh)
  const form: Form = formOf(source)
  const [chosen, setChosen] = useState<ChosenPoint>()
  return (
    <>
      <div className="row spread">
        <h1>{title}</h1>
        <Link to="/project/$projectId/insights" params={{ projectId }} search={{}}>
          All insights
        </Link>
      </div>
      <BuilderForm
        form={form}
        eventNames={eventNames}
        actions={actionChoices}
        cohorts={cohortChoices}
        onApply={(next) => onChange(queryOf(next))}
      />
      <section className="notice result" aria-label="Result">
        <div className="row spread">
          <span className="muted" role="status">
            {result.isFetching
              ? 'Calculating…'
              : result.data?.last_refresh
                ? `Computed ${new Date(result.data.last_refresh).toLocaleString()}`
                : ''}
          </span>
          <button type="button" onClick={() => setRefreshed({ key: sourceKey, count: refresh + 1 })} disabled={result.isFetching}>
            Refresh
          </button>
        </div>
        {result.isPending ? (
          <Loading what="the result" />
        ) : result.isError ? (
          <ErrorNotice error={result.error} retry={() => void result.refetch()} />
        ) : (
          <InsightResult source={source} results={result.data.results} title={title} onPoint={setChosen} />
        )}
      </section>
      <ActorsDialog projectId={projectId} opened={chosen && { source, chosen }} onClose={() => setChosen(undefined)} />
      <div className="toolbar">{actions}</div>
    </>
  )
}

function SaveNew({ projectId, source }: { projectId: string; source: InsightSource }) {
  const [name, setName] = useState('')
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const save = useMutation({
    mutationFn: () => trpc.insights.create.mutate({ project_id: projectId, name: name.trim(), saved: true, query: vizNode(source) }),
    onSuccess: async (insight) => {
      await queryClient.invalidateQueries({ queryKey: ['insights', projectId] })
      await navigate({ to: '/project/$projectId/insights/$shortId', params: { projectId, shortId: insight.short_id }, search: {} })
    },
  })
  return (
    <form
      className="toolbar"
      aria-label="Save as insight"
      onSubmit={(e) => {
        e.preventDefault()
        save.mutate()
      }}
    >
      <label className="field">
        <span>Insight name</span>
        <input required value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <button type="submit" className="primary" disabled={save.isPending}>
        Save as insight
      </button>
      {save.isError && <Refusal error={save.error} />}
    </form>
  )
}

function SaveChanges({ projectId, id, source, edited }: { projectId: string; id: number; source: InsightSource; edited: boolean }) {
  const queryClient = useQueryClient()
  const save = useMutation({
    mutationFn: () => trpc.insights.update.mutate({ project_id: projectId, id: String(id), data: { query: vizNode(source) } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['insight', projectId] }),
  })
  return (
    <div className="row">
      <button type="button" className="primary" disabled={!edited || save.isPending} onClick={() => save.mutate()}>
        Save changes
      </button>
      {save.isError && <Refusal error={save.error} />}
    </div>
  )
}

/** Deletes the insight (PostHog's soft delete: `deleted: true`), after asking, and goes back to the list. */
function DeleteInsight({ projectId, id }: { projectId: string; id: number }) {
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const remove = useMutation({
    mutationFn: () => trpc.insights.update.mutate({ project_id: projectId, id: String(id), data: { deleted: true } }),
    onSuccess: async () => {
      queryClient.removeQueries({ queryKey: ['insight', projectId] })
      await queryClient.invalidateQueries({ queryKey: ['insights', projectId] })
      await navigate({ to: '/project/$projectId/insights', params: { projectId }, search: {} })
    },
  })
  return (
    <div className="row">
      <button
        type="button"
        className="danger"
        disabled={remove.isPending}
        onClick={() => {
          if (window.confirm('Delete this insight? It leaves every dashboard it is on.')) remove.mutate()
        }}
      >
        Delete insight
      </button>
      {remove.isError && <Refusal error={remove.error} />}
    </div>
  )
}

const NEW_DASHBOARD = 'new'

function AddToDashboard({ projectId, id, on }: { projectId: string; id: number; on: number[] }) {
  const dashboards = useDashboards(projectId)
  const queryClient = useQueryClient()
  const [chosen, setChosen] = useState('')
  const [newName, setNewName] = useState('')
  const add = useMutation({
    mutationFn: async (dashboard: string) => {
      // "new": a dashboard of that name is made first, as PostHog's "Add to a new dashboard" does.
      const target =
        dashboard === NEW_DASHBOARD
          ? (await trpc.dashboards.create.mutate({ project_id: projectId, name: newName.trim() })).id
          : Number(dashboard)
      return trpc.insights.update.mutate({ project_id: projectId, id: String(id), data: { dashboards: [...on, target] } })
    },
    onSuccess: async () => {
      setChosen('')
      setNewName('')
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['insight', projectId] }),
        queryClient.invalidateQueries({ queryKey: ['dashboards', projectId] }),
      ])
    },
  })
  const choices = (dashboards.data?.results ?? []).filter((d) => !on.includes(d.id))
  const names = (dashboards.data?.results ?? []).filter((d) => on.includes(d.id))
  return (
    <form
      className="toolbar"
      aria-label="Add to dashboard"
      onSubmit={(e) => {
        e.preventDefault()
        if (chosen) add.mutate(chosen)
      }}
    >
      <label className="field">
        <span>Dashboard</span>
        <select value={chosen} onChange={(e) => setChosen(e.target.value)} required>
          <option value="">Choose a dashboard</option>
          {choices.map((d) => (
            <option key={d.id} value={String(d.id)}>
              {d.name || `Dashboard ${d.id}`}
            </option>
          ))}
          <option value={NEW_DASHBOARD}>A new dashboard…</option>
        </select>
      </label>
      {chosen === NEW_DASHBOARD && (
        <label className="field">
          <span>New dashboard name</span>
          <input required value={newName} onChange={(e) => setNewName(e.target.value)} />
        </label>
      )}
      <button type="submit" disabled={add.isPending || chosen === ''}>
        Add to dashboard
      </button>
      {names.length > 0 && (
        <p className="muted">
          On{' '}
          {names.map((d, i) => (
            <span key={d.id}>
              {i > 0 && ', '}
              <Link to="/project/$projectId/dashboards/$id" params={{ projectId, id: String(d.id) }} search={{}}>
                {d.name || `Dashboard ${d.id}`}
              </Link>
            </span>
          ))}
        </p>
      )}
      {add.isError && <Refusal error={add.error} />}
    </form>
  )
}
