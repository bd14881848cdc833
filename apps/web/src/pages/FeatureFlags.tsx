import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { useId, useState } from 'react'
import { trpc } from '../api'
import { SearchForm } from '../components/SearchForm'
import { DataTable } from '../components/DataTable'
import { DeleteButton } from '../components/Dialog'
import { FlagFiltersEditor } from '../components/FlagFiltersEditor'
import { ErrorNotice, ListStates, Loading, Refusal } from '../components/States'
import { filtersOf, formOf, problemsOf, type FlagForm } from '../flagFilters'

type Flag = Awaited<ReturnType<typeof trpc.featureFlags.get.query>>

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
              {
                header: 'Key',
                cell: (flag) => (
                  <Link to="/project/$projectId/feature_flags/$id" params={{ projectId, id: String(flag.id) }}>
                    <code>{flag.key}</code>
                  </Link>
                ),
              },
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
      {toggle.isError && <Refusal error={toggle.error} />}
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
      {create.isError && <Refusal error={create.error} />}
    </form>
  )
}

/** `/project/:id/feature_flags/:id`: a flag's key, description, state, release conditions, variants and payloads; its deletion; what a distinct id gets. */
export function FeatureFlagPage(): React.JSX.Element {
  const { projectId, id } = useParams({ from: '/project/$projectId/feature_flags/$id' })
  const navigate = useNavigate({ from: '/project/$projectId/feature_flags/$id' })
  const queryClient = useQueryClient()
  const flag = useQuery({
    queryKey: ['feature-flag', projectId, id],
    queryFn: ({ signal }) => trpc.featureFlags.get.query({ project_id: projectId, id }, { signal }),
  })
  const remove = useMutation({
    mutationFn: () => trpc.featureFlags.update.mutate({ project_id: projectId, id, data: { deleted: true } }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['feature-flags', projectId] })
      await navigate({ to: '/project/$projectId/feature_flags', params: { projectId }, search: {} })
    },
  })
  if (flag.isPending) return <Loading what="the feature flag" />
  if (flag.isError) return <ErrorNotice error={flag.error} retry={() => void flag.refetch()} />
  const data = flag.data
  if (data.deleted)
    return (
      <div className="notice" role="alert">
        <p>
          The flag <code>{data.key}</code> was deleted.
        </p>
        <Link to="/project/$projectId/feature_flags" params={{ projectId }} search={{}}>
          All flags
        </Link>
      </div>
    )
  return (
    <>
      <div className="row spread">
        <h1>
          Flag <code>{data.key}</code>
        </h1>
        <div className="row">
          <Link to="/project/$projectId/feature_flags" params={{ projectId }} search={{}}>
            All flags
          </Link>
          <DeleteButton noun="flag" deletion={remove}>
            <p>
              <code>{data.key}</code> will no longer be listed, and SDKs asking for it get nothing (false) from then on.
            </p>
          </DeleteButton>
        </div>
      </div>
      <FlagEditForm
        key={data.id}
        projectId={projectId}
        flag={data}
        onSaved={(saved) => {
          queryClient.setQueryData(['feature-flag', projectId, id], saved)
          void queryClient.invalidateQueries({ queryKey: ['feature-flags', projectId] })
        }}
      />
      <FlagEvaluation projectId={projectId} flagKey={data.key} />
    </>
  )
}

/** The flag's fields, checked as the service checks them before they are sent. */
function FlagEditForm({ projectId, flag, onSaved }: { projectId: string; flag: Flag; onSaved: (flag: Flag) => void }) {
  const [key, setKey] = useState(flag.key)
  const [name, setName] = useState(flag.name)
  const [active, setActive] = useState(flag.active)
  const [form, setForm] = useState<FlagForm>(() => formOf(flag.filters))
  const [saved, setSaved] = useState(false)
  const problems = problemsOf(form)
  const save = useMutation({
    mutationFn: () =>
      trpc.featureFlags.update.mutate({
        project_id: projectId,
        id: String(flag.id),
        data: { key: key.trim(), name, active, filters: filtersOf(form) },
      }),
    onSuccess: (next) => {
      setSaved(true)
      onSaved(next)
    },
  })
  const change = (next: FlagForm) => {
    setSaved(false)
    setForm(next)
  }
  return (
    <form
      className="builder"
      aria-label="Feature flag"
      onSubmit={(e) => {
        e.preventDefault()
        if (problems.length === 0) save.mutate()
      }}
    >
      <div className="toolbar" style={{ marginBottom: 0 }}>
        <label className="field">
          <span>Key</span>
          <input required pattern="[a-zA-Z0-9_\-]+" value={key} onChange={(e) => setKey(e.target.value)} />
        </label>
        <label className="field">
          <span>Description</span>
          <input value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="row">
          <input type="checkbox" role="switch" checked={active} onChange={(e) => setActive(e.target.checked)} />
          <span>Enabled</span>
        </label>
      </div>
      <FlagFiltersEditor value={form} onChange={change} />
      {problems.length > 0 && (
        <div className="notice error" role="alert">
          {problems.map((problem) => (
            <p key={problem}>{problem}</p>
          ))}
        </div>
      )}
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save flag
        </button>
        {saved && !save.isPending && (
          <span className="muted" role="status">
            Saved.
          </span>
        )}
      </div>
      {save.isError && <Refusal error={save.error} />}
    </form>
  )
}

/** What `/decide/` answers about one flag for a distinct id. */
interface Evaluation {
  value: unknown
  payload: unknown
}

/** The flag's value and payload for a distinct id, as SDKs get them from the public `/decide/?v=3`. */
async function evaluate(
  token: string,
  flagKey: string,
  distinctId: string,
  personProperties: Record<string, unknown>,
): Promise<Evaluation> {
  const response = await fetch('/decide/?v=3', {
    method: 'POST',
    credentials: 'omit',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, distinct_id: distinctId, person_properties: personProperties }),
  })
  const body = (await response.json().catch(() => undefined)) as
    { featureFlags?: Record<string, unknown>; featureFlagPayloads?: Record<string, unknown>; detail?: string } | undefined
  if (!response.ok) throw new Error(body?.detail ?? `The service answered ${response.status}.`)
  return { value: body?.featureFlags?.[flagKey] ?? false, payload: body?.featureFlagPayloads?.[flagKey] }
}

/** "What does this distinct id get": the same evaluation SDKs get from `/decide/`, with optional person properties. */
function FlagEvaluation({ projectId, flagKey }: { projectId: string; flagKey: string }) {
  const { distinct_id } = useSearch({ from: '/project/$projectId/feature_flags/$id' })
  const navigate = useNavigate({ from: '/project/$projectId/feature_flags/$id' })
  const [distinctId, setDistinctId] = useState(distinct_id ?? '')
  const [propertiesText, setPropertiesText] = useState('')
  // Each question is asked anew, even of the same distinct id: the flag or the person may have changed.
  const [asked, setAsked] = useState<{ properties: Record<string, unknown>; n: number }>({ properties: {}, n: 0 })
  const [problem, setProblem] = useState<string>()
  const headingId = useId()
  const project = useQuery({
    queryKey: ['project', projectId],
    queryFn: ({ signal }) => trpc.projects.get.query({ id: projectId }, { signal }),
  })
  const token = project.data?.api_token
  const answer = useQuery({
    queryKey: ['flag-evaluation', projectId, flagKey, distinct_id, asked],
    queryFn: () => evaluate(token!, flagKey, distinct_id!, asked.properties),
    enabled: token !== undefined && !!distinct_id,
    retry: false,
  })
  return (
    <section aria-labelledby={headingId}>
      <h2 id={headingId}>What does this distinct id get?</h2>
      <p className="muted">The flag&apos;s value and payload for one user, evaluated as SDKs get it from /decide/ (saved changes only).</p>
      <form
        className="toolbar"
        aria-label="Evaluate the flag"
        onSubmit={(e) => {
          e.preventDefault()
          let parsed: unknown
          try {
            parsed = propertiesText.trim() ? JSON.parse(propertiesText) : {}
          } catch {
            setProblem('The person properties are not valid JSON.')
            return
          }
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
            setProblem('The person properties must be a JSON object, such as {"plan": "pro"}.')
            return
          }
          setProblem(undefined)
          setAsked({ properties: parsed as Record<string, unknown>, n: asked.n + 1 })
          void navigate({ search: { distinct_id: distinctId.trim() || undefined }, replace: true })
        }}
      >
        <label className="field">
          <span>Distinct id</span>
          <input required value={distinctId} onChange={(e) => setDistinctId(e.target.value)} />
        </label>
        <label className="field">
          <span>Person properties (JSON, optional)</span>
          <textarea
            rows={1}
            spellCheck={false}
            placeholder='{"plan": "pro"}'
            value={propertiesText}
            onChange={(e) => setPropertiesText(e.target.value)}
          />
        </label>
        <button type="submit">Evaluate</button>
      </form>
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
      {project.isError && <ErrorNotice error={project.error} retry={() => void project.refetch()} />}
      {answer.isError && <ErrorNotice error={answer.error} retry={() => void answer.refetch()} />}
      {/* Always present, so that a screen reader announces each answer as it comes. */}
      <div role="status">
        {distinct_id && answer.isFetching && <p className="muted">Asking /decide/…</p>}
        {distinct_id && answer.isSuccess && !answer.isFetching && (
          <dl aria-label="Evaluation">
            <dt>
              <code>{distinct_id}</code> gets
            </dt>
            <dd>
              <code>{JSON.stringify(answer.data.value)}</code>
            </dd>
            <dt>Payload</dt>
            <dd>
              {answer.data.payload === undefined ? <span className="muted">none</span> : <code>{payloadWords(answer.data.payload)}</code>}
            </dd>
          </dl>
        )}
      </div>
    </section>
  )
}

/** A payload as JSON text: PostHog keeps it as text, which is shown as it is. */
const payloadWords = (payload: unknown): string => (typeof payload === 'string' ? payload : JSON.stringify(payload))
