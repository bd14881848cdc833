import { useQuery } from '@tanstack/react-query'
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { trpc } from '../api'
import { SearchForm } from '../components/SearchForm'
import { DataTable } from '../components/DataTable'
import { ListStates } from '../components/States'
import { KINDS, sourceOfInsight } from '../insightQuery'

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' })

const kindLabel = (query: Record<string, unknown> | null): string => {
  const kind = sourceOfInsight(query)?.kind
  return KINDS.find(([k]) => k === kind)?.[1] ?? (query ? 'SQL' : '—')
}

/** `/project/:id/insights`: the saved insights, a search kept in the URL, and a way to make a new one. */
export function Insights(): React.JSX.Element {
  const { projectId } = useParams({ from: '/project/$projectId/insights' })
  const { search } = useSearch({ from: '/project/$projectId/insights' })
  const navigate = useNavigate({ from: '/project/$projectId/insights' })
  const insights = useQuery({
    queryKey: ['insights', projectId, search],
    queryFn: ({ signal }) =>
      trpc.insights.list.query({ project_id: projectId, saved: true, limit: 100, ...(search ? { search } : {}) }, { signal }),
  })
  return (
    <>
      <div className="row spread">
        <h1>Insights</h1>
        <Link className="button primary" to="/project/$projectId/insights/new" params={{ projectId }} search={{}}>
          New insight
        </Link>
      </div>
      <SearchForm label="Search insights" value={search} onSearch={(value) => void navigate({ search: { search: value } })} />
      <ListStates
        query={insights}
        what="insights"
        rowsOf={(data) => data.results}
        empty={<p>{search ? 'No insight matches this search.' : 'No saved insights yet. Make one with “New insight”, then save it.'}</p>}
      >
        {(data) => (
          <DataTable
            label="Saved insights"
            rows={data.results}
            rowKey={(insight) => insight.id}
            columns={[
              {
                header: 'Name',
                cell: (insight) => (
                  <Link to="/project/$projectId/insights/$shortId" params={{ projectId, shortId: insight.short_id }} search={{}}>
                    {insight.name || insight.derived_name || 'Untitled'}
                  </Link>
                ),
              },
              { header: 'Type', cell: (insight) => kindLabel(insight.query) },
              {
                header: 'Last modified',
                cell: (insight) => <time dateTime={insight.last_modified_at}>{timeFormat.format(new Date(insight.last_modified_at))}</time>,
              },
            ]}
          />
        )}
      </ListStates>
    </>
  )
}
