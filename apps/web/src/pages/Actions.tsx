import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { stepsSummary } from '../actionSteps'
import { trpc } from '../api'
import { ActionForm } from '../components/ActionForm'
import { DataManagementNav } from '../components/DataManagementNav'
import { DataTable } from '../components/DataTable'
import { DeleteButton } from '../components/Dialog'
import { SearchForm } from '../components/SearchForm'
import { ErrorNotice, ListStates, Loading } from '../components/States'
import { useMe } from '../hooks'

const LIST = '/project/$projectId/data-management/actions'
const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })
const count = new Intl.NumberFormat('en-US')

type Action = Awaited<ReturnType<typeof trpc.actions.get.query>>

const nameOf = (action: Pick<Action, 'id' | 'name'>) => action.name || `Action ${action.id}`
const creatorOf = (action: Action) => action.created_by?.first_name || action.created_by?.email || '—'

/**
 * `/project/:id/data-management/actions`: the project's live actions (an event matching any of an
 * action's steps is that action), a search kept in the URL (`?search=`), and a new one.
 */
export function Actions(): React.JSX.Element {
  const { projectId } = useParams({ from: LIST })
  const { search } = useSearch({ from: LIST })
  const navigate = useNavigate({ from: LIST })
  const actions = useQuery({
    queryKey: ['actions', projectId, search],
    queryFn: ({ signal }) => trpc.actions.list.query({ project_id: projectId, limit: 100, ...(search ? { search } : {}) }, { signal }),
  })
  return (
    <>
      <div className="row spread">
        <h1>Data management</h1>
        <Link className="button primary" to="/project/$projectId/data-management/actions/new" params={{ projectId }}>
          New action
        </Link>
      </div>
      <DataManagementNav projectId={projectId} />
      <p className="muted">Actions name what people do in terms of events: a page view of a URL, a click on a button, a custom event.</p>
      <SearchForm label="Search actions" value={search} onSearch={(value) => void navigate({ search: { search: value } })} />
      <ListStates
        query={actions}
        what="actions"
        rowsOf={(data) => data.results}
        empty={
          <p>
            {search
              ? 'No action matches this search.'
              : 'No actions yet. Make one with New action: an event, a URL or a clicked element it stands for.'}
          </p>
        }
      >
        {(data) => (
          <>
            {data.count > data.results.length && (
              <p className="muted">
                The first {data.results.length} of {count.format(data.count)} actions: search to find the others.
              </p>
            )}
            <DataTable
              label="Actions"
              rows={data.results}
              rowKey={(action) => action.id}
              columns={[
                {
                  header: 'Name',
                  cell: (a) => (
                    <Link to="/project/$projectId/data-management/actions/$actionId" params={{ projectId, actionId: String(a.id) }}>
                      {nameOf(a)}
                    </Link>
                  ),
                },
                { header: 'Description', cell: (a) => a.description || <span className="muted">—</span> },
                {
                  header: 'Steps',
                  cell: (a) =>
                    a.steps.length ? (
                      <ul className="steps" aria-label={`Steps of ${nameOf(a)}`}>
                        {stepsSummary(a).map((line, i) => (
                          <li key={i}>{line}</li>
                        ))}
                      </ul>
                    ) : (
                      <span className="muted">No steps: matches no event</span>
                    ),
                },
                { header: 'Created by', cell: creatorOf },
                { header: 'Created', cell: (a) => timeFormat.format(new Date(a.created_at)) },
              ]}
            />
          </>
        )}
      </ListStates>
    </>
  )
}

/** `/project/:id/data-management/actions/new`: an action's name, description and steps. */
export function NewAction(): React.JSX.Element {
  const { projectId } = useParams({ from: '/project/$projectId/data-management/actions/new' })
  const navigate = useNavigate({ from: '/project/$projectId/data-management/actions/new' })
  const queryClient = useQueryClient()
  const eventNames = useMe().data?.team?.event_names ?? []
  return (
    <>
      <div className="row spread">
        <h1>New action</h1>
        <Link to={LIST} params={{ projectId }} search={{}}>
          All actions
        </Link>
      </div>
      <ActionForm
        eventNames={eventNames}
        save={(data) => trpc.actions.create.mutate({ project_id: projectId, ...data })}
        onSaved={(action) => {
          void queryClient.invalidateQueries({ queryKey: ['actions', projectId] })
          void navigate({ to: '/project/$projectId/data-management/actions/$actionId', params: { projectId, actionId: String(action.id) } })
        }}
      />
    </>
  )
}

/** `/project/:id/data-management/actions/:id`: an action to edit, to chart as a trend, or to delete. */
export function ActionPage(): React.JSX.Element {
  const { projectId, actionId } = useParams({ from: '/project/$projectId/data-management/actions/$actionId' })
  const navigate = useNavigate({ from: '/project/$projectId/data-management/actions/$actionId' })
  const queryClient = useQueryClient()
  const eventNames = useMe().data?.team?.event_names ?? []
  const action = useQuery({
    queryKey: ['action', projectId, actionId],
    queryFn: ({ signal }) => trpc.actions.get.query({ project_id: projectId, id: actionId }, { signal }),
  })
  const remove = useMutation({
    // Soft: the action leaves the list, and insights that name it are refused until it is back.
    mutationFn: () => trpc.actions.update.mutate({ project_id: projectId, id: actionId, data: { deleted: true } }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['actions', projectId] })
      await navigate({ to: LIST, params: { projectId }, search: {} })
    },
  })
  if (action.isPending) return <Loading what="the action" />
  if (action.isError) return <ErrorNotice error={action.error} retry={() => void action.refetch()} />
  const data = action.data
  const trend = {
    kind: 'TrendsQuery',
    series: [{ kind: 'ActionsNode', id: data.id, name: nameOf(data) }],
    interval: 'day',
    dateRange: { date_from: '-7d' },
    trendsFilter: { display: 'ActionsLineGraph' },
  }
  return (
    <>
      <div className="row spread">
        <h1>{nameOf(data)}</h1>
        <div className="row">
          <Link to={LIST} params={{ projectId }} search={{}}>
            All actions
          </Link>
          <Link className="button" to="/project/$projectId/insights/new" params={{ projectId }} search={{ q: trend }}>
            Chart as a trend
          </Link>
          {!data.deleted && (
            <DeleteButton noun="action" deletion={remove}>
              <p>{nameOf(data)} will no longer be listed, and insights that chart it are refused until it is back.</p>
            </DeleteButton>
          )}
        </div>
      </div>
      {data.deleted && (
        <p className="notice error" role="alert">
          This action is deleted: it is not listed, and insights that chart it are refused.
        </p>
      )}
      <p className="muted">
        Made {timeFormat.format(new Date(data.created_at))}
        {data.created_by && ` by ${creatorOf(data)}`}.
      </p>
      <ActionForm
        key={data.id}
        action={data}
        eventNames={eventNames}
        save={(changes) => trpc.actions.update.mutate({ project_id: projectId, id: actionId, data: changes })}
        onSaved={(saved) => {
          queryClient.setQueryData(['action', projectId, actionId], saved)
          void queryClient.invalidateQueries({ queryKey: ['actions', projectId] })
        }}
      />
    </>
  )
}
