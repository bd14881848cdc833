import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { useState } from 'react'
import { trpc } from '../api'
import { criteriaOf, filtersOf, newCriteria, type Criteria } from '../cohortCriteria'
import { CohortCriteriaEditor } from '../components/CohortCriteriaEditor'
import { DataTable } from '../components/DataTable'
import { DeleteButton, Dialog } from '../components/Dialog'
import { Pager } from '../components/Pager'
import { PersonsTable } from '../components/PersonsTable'
import { SearchForm } from '../components/SearchForm'
import { ErrorNotice, ListStates, Loading, Refusal } from '../components/States'

type Cohort = Awaited<ReturnType<typeof trpc.cohorts.get.query>>

/** How often a cohort being calculated is asked for again, until its count is known. */
const CALCULATING_INTERVAL_MS = 1_000

/** A cohort's count as the list and its page show it. */
function countOf(cohort: Cohort): string {
  if (cohort.count !== null && !cohort.is_calculating) return cohort.count === 1 ? '1 person' : `${cohort.count} persons`
  return cohort.is_calculating ? 'Calculating…' : '—'
}

const kindOf = (cohort: Cohort) => (cohort.is_static ? 'Static' : 'Dynamic')

/** `/project/:id/cohorts`: the cohorts (`?search=`), a new dynamic one, and a static one from a CSV. */
export function Cohorts(): React.JSX.Element {
  const { projectId } = useParams({ from: '/project/$projectId/cohorts' })
  const { search } = useSearch({ from: '/project/$projectId/cohorts' })
  const navigate = useNavigate({ from: '/project/$projectId/cohorts' })
  const [uploading, setUploading] = useState(false)
  const cohorts = useQuery({
    queryKey: ['cohorts', projectId, search],
    queryFn: ({ signal }) => trpc.cohorts.list.query({ project_id: projectId, limit: 100, ...(search ? { search } : {}) }, { signal }),
    refetchInterval: (query) => (query.state.data?.results.some((c) => c.is_calculating) ? CALCULATING_INTERVAL_MS : false),
  })
  return (
    <>
      <div className="row spread">
        <h1>Cohorts</h1>
        <div className="row">
          <button type="button" onClick={() => setUploading(true)}>
            Upload static cohort
          </button>
          <Link className="button primary" to="/project/$projectId/cohorts/new" params={{ projectId }}>
            New cohort
          </Link>
        </div>
      </div>
      <Dialog open={uploading} title="Static cohort from a CSV" onClose={() => setUploading(false)}>
        <StaticCohortForm
          projectId={projectId}
          onCreated={(cohort) =>
            void navigate({ to: '/project/$projectId/cohorts/$cohortId', params: { projectId, cohortId: String(cohort.id) } })
          }
        />
      </Dialog>
      <SearchForm label="Search cohorts" value={search} onSearch={(value) => void navigate({ search: { search: value } })} />
      <ListStates
        query={cohorts}
        what="cohorts"
        rowsOf={(data) => data.results}
        empty={
          <p>
            {search
              ? 'No cohort matches this search.'
              : 'No cohorts yet. Make one of the persons who match some conditions with New cohort, or upload a list of distinct ids.'}
          </p>
        }
      >
        {(data) => (
          <DataTable
            label="Cohorts"
            rows={data.results}
            rowKey={(cohort) => cohort.id}
            columns={[
              {
                header: 'Name',
                cell: (cohort) => (
                  <Link to="/project/$projectId/cohorts/$cohortId" params={{ projectId, cohortId: String(cohort.id) }}>
                    {cohort.name || `Cohort ${cohort.id}`}
                  </Link>
                ),
              },
              { header: 'Persons', cell: countOf },
              { header: 'Kind', cell: kindOf },
              { header: 'Created', cell: (cohort) => new Date(cohort.created_at).toLocaleString() },
            ]}
          />
        )}
      </ListStates>
    </>
  )
}

/** The text of a chosen file, or nothing when none is chosen. */
const fileText = (input: HTMLInputElement | null): Promise<string | undefined> =>
  input?.files?.[0] ? input.files[0].text() : Promise.resolve(undefined)

/** A static cohort: its name and a CSV whose first column is the members' distinct ids. */
function StaticCohortForm({ projectId, onCreated }: { projectId: string; onCreated: (cohort: Cohort) => void }) {
  const [name, setName] = useState('')
  const create = useMutation({
    mutationFn: async (file: HTMLInputElement | null) => {
      const csv = await fileText(file)
      return trpc.cohorts.create.mutate({
        project_id: projectId,
        name: name.trim(),
        is_static: true,
        ...(csv === undefined ? {} : { csv }),
      })
    },
    onSuccess: onCreated,
  })
  return (
    <form
      className="stack"
      aria-label="Static cohort"
      onSubmit={(e) => {
        e.preventDefault()
        create.mutate(e.currentTarget.elements.namedItem('csv') as HTMLInputElement | null)
      }}
    >
      <label className="field">
        <span>Name</span>
        <input required value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label className="field">
        <span>CSV file of distinct ids (first column; a distinct_id header is skipped)</span>
        <input name="csv" type="file" required accept=".csv,text/csv,text/plain" />
      </label>
      <div className="row">
        <button type="submit" className="primary" disabled={create.isPending}>
          Create static cohort
        </button>
      </div>
      {create.isError && <Refusal error={create.error} />}
    </form>
  )
}

/** The cohorts an "in cohort" condition may name: all but `except`. */
function useCohortChoices(projectId: string, except?: number) {
  const list = useQuery({
    queryKey: ['cohorts', projectId, undefined],
    queryFn: ({ signal }) => trpc.cohorts.list.query({ project_id: projectId, limit: 100 }, { signal }),
  })
  return (list.data?.results ?? []).filter((c) => c.id !== except)
}

/** `/project/:id/cohorts/new`: a dynamic cohort's name, description and conditions. */
export function NewCohort(): React.JSX.Element {
  const { projectId } = useParams({ from: '/project/$projectId/cohorts/new' })
  const navigate = useNavigate({ from: '/project/$projectId/cohorts/new' })
  return (
    <>
      <div className="row spread">
        <h1>New cohort</h1>
        <Link to="/project/$projectId/cohorts" params={{ projectId }} search={{}}>
          All cohorts
        </Link>
      </div>
      <CohortForm
        projectId={projectId}
        onSaved={(cohort) =>
          void navigate({ to: '/project/$projectId/cohorts/$cohortId', params: { projectId, cohortId: String(cohort.id) } })
        }
      />
    </>
  )
}

/** A cohort's name and description, and a dynamic one's conditions; saved as new, or over `cohort`. */
function CohortForm({ projectId, cohort, onSaved }: { projectId: string; cohort?: Cohort; onSaved: (cohort: Cohort) => void }) {
  const [name, setName] = useState(cohort?.name ?? '')
  const [description, setDescription] = useState(cohort?.description ?? '')
  const [criteria, setCriteria] = useState<Criteria>(() => (cohort ? criteriaOf(cohort.filters) : newCriteria()))
  const dynamic = !cohort?.is_static
  const choices = useCohortChoices(projectId, cohort?.id)
  const save = useMutation({
    mutationFn: () => {
      const fields = { name: name.trim(), description, ...(dynamic ? { filters: filtersOf(criteria) } : {}) }
      return cohort
        ? trpc.cohorts.update.mutate({ project_id: projectId, id: String(cohort.id), data: fields })
        : trpc.cohorts.create.mutate({ project_id: projectId, ...fields })
    },
    onSuccess: onSaved,
  })
  return (
    <form
      className="builder"
      aria-label={cohort ? 'Cohort' : 'New cohort'}
      onSubmit={(e) => {
        e.preventDefault()
        save.mutate()
      }}
    >
      <div className="toolbar" style={{ marginBottom: 0 }}>
        <label className="field">
          <span>Name</span>
          <input required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="field">
          <span>Description</span>
          <input value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
      </div>
      {dynamic && <CohortCriteriaEditor value={criteria} cohorts={choices} onChange={setCriteria} />}
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>
          {cohort ? 'Save cohort' : 'Create cohort'}
        </button>
        {save.isSuccess && cohort && (
          <span className="muted" role="status">
            Saved.
          </span>
        )}
      </div>
      {save.isError && <Refusal error={save.error} />}
    </form>
  )
}

/** `/project/:id/cohorts/:id`: a cohort's count and members, its definition to edit, and its deletion. */
export function CohortPage(): React.JSX.Element {
  const { projectId, cohortId } = useParams({ from: '/project/$projectId/cohorts/$cohortId' })
  const navigate = useNavigate({ from: '/project/$projectId/cohorts/$cohortId' })
  const queryClient = useQueryClient()
  const cohort = useQuery({
    queryKey: ['cohort', projectId, cohortId],
    queryFn: ({ signal }) => trpc.cohorts.get.query({ project_id: projectId, id: cohortId }, { signal }),
    refetchInterval: (query) => (query.state.data?.is_calculating ? CALCULATING_INTERVAL_MS : false),
  })
  const remove = useMutation({
    mutationFn: () => trpc.cohorts.update.mutate({ project_id: projectId, id: cohortId, data: { deleted: true } }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['cohorts', projectId] })
      await navigate({ to: '/project/$projectId/cohorts', params: { projectId }, search: {} })
    },
  })
  if (cohort.isPending) return <Loading what="the cohort" />
  if (cohort.isError) return <ErrorNotice error={cohort.error} retry={() => void cohort.refetch()} />
  const data = cohort.data
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['cohort', projectId, cohortId] })
  return (
    <>
      <div className="row spread">
        <h1>{data.name || `Cohort ${data.id}`}</h1>
        <div className="row">
          <Link to="/project/$projectId/cohorts" params={{ projectId }} search={{}}>
            All cohorts
          </Link>
          <DeleteButton noun="cohort" deletion={remove}>
            <p>
              {data.name || `Cohort ${data.id}`} will no longer be listed, and flags and cohorts that name it stop matching its persons. The
              persons themselves stay.
            </p>
          </DeleteButton>
        </div>
      </div>
      <p aria-live="polite">
        <strong>{countOf(data)}</strong> <span className="muted">· {kindOf(data)} cohort</span>
        {data.last_calculation && <span className="muted"> · calculated {new Date(data.last_calculation).toLocaleString()}</span>}
      </p>
      {data.errors_calculating > 0 && !data.is_calculating && (
        <p className="notice error" role="alert">
          The service could not calculate this cohort ({data.errors_calculating} failed {data.errors_calculating === 1 ? 'try' : 'tries'}):
          check its conditions, then save it again.
        </p>
      )}
      <CohortForm key={data.id} projectId={projectId} cohort={data} onSaved={refresh} />
      {data.is_static && <AddMembersForm projectId={projectId} cohortId={cohortId} onAdded={refresh} />}
      <h2>Members</h2>
      <CohortMembers projectId={projectId} cohort={data} />
    </>
  )
}

/** More members of a static cohort, from a CSV of distinct ids. */
function AddMembersForm({ projectId, cohortId, onAdded }: { projectId: string; cohortId: string; onAdded: () => void }) {
  const add = useMutation({
    mutationFn: async (file: HTMLInputElement | null) => {
      const csv = await fileText(file)
      return trpc.cohorts.update.mutate({ project_id: projectId, id: cohortId, data: { ...(csv === undefined ? {} : { csv }) } })
    },
    onSuccess: onAdded,
  })
  return (
    <form
      className="toolbar"
      aria-label="Add members"
      onSubmit={(e) => {
        e.preventDefault()
        const input = e.currentTarget.elements.namedItem('csv') as HTMLInputElement | null
        add.mutate(input, { onSuccess: () => input && (input.value = '') })
      }}
    >
      <label className="field">
        <span>Add persons from a CSV of distinct ids</span>
        <input name="csv" type="file" required accept=".csv,text/csv,text/plain" />
      </label>
      <button type="submit" disabled={add.isPending}>
        Add persons
      </button>
      {add.isError && <Refusal error={add.error} />}
    </form>
  )
}

/** Members a page of a cohort's members shows. */
const MEMBERS_PAGE = 100

/** A cohort's members as of its last calculation, a page at a time, each linking to their person page. */
function CohortMembers({ projectId, cohort }: { projectId: string; cohort: Cohort }) {
  const [offset, setOffset] = useState(0)
  const members = useQuery({
    queryKey: ['cohort-persons', projectId, cohort.id, cohort.last_calculation, offset],
    queryFn: ({ signal }) =>
      trpc.cohorts.persons.query({ project_id: projectId, id: String(cohort.id), limit: MEMBERS_PAGE, offset }, { signal }),
  })
  return (
    <ListStates
      query={members}
      what="the members"
      rowsOf={(data) => data.results}
      empty={<p>{cohort.is_calculating ? 'Working out who is in this cohort…' : 'No one is in this cohort yet.'}</p>}
    >
      {(data) => (
        <>
          <PersonsTable label="Members" projectId={projectId} persons={data.results} />
          <Pager what="members" offset={offset} limit={MEMBERS_PAGE} shown={data.results.length} count={data.count} onOffset={setOffset} />
        </>
      )}
    </ListStates>
  )
}
