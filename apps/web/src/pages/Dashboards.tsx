import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { useState } from 'react'
import { trpc } from '../api'
import { ActorsDialog } from '../components/InsightActors'
import { InsightResult } from '../components/InsightResult'
import { DataTable } from '../components/DataTable'
import { SearchForm } from '../components/SearchForm'
import { ErrorNotice, ListStates, Loading, Refusal } from '../components/States'
import type { ChosenPoint } from '../insightActors'
import { useDashboards, useInsightResult } from '../insightHooks'
import { sourceOfInsight, undrawnInsight, withDateRange, withPropertyFilter, type InsightSource } from '../insightQuery'
import { PropertyFilterForm } from '../components/PropertyFilterForm'
import { layoutsInOrder, moveTile } from '../tileLayout'

type Dashboard = Awaited<ReturnType<typeof trpc.dashboards.get.query>>
type Tile = Dashboard['tiles'][number]

/** `/project/:id/dashboards`: the dashboards, a search kept in the URL, and a new one. */
export function Dashboards(): React.JSX.Element {
  const { projectId } = useParams({ from: '/project/$projectId/dashboards' })
  const { search } = useSearch({ from: '/project/$projectId/dashboards' })
  const navigate = useNavigate({ from: '/project/$projectId/dashboards' })
  const dashboards = useDashboards(projectId, search)
  return (
    <>
      <h1>Dashboards</h1>
      <NewDashboardForm projectId={projectId} />
      <SearchForm label="Search dashboards" value={search} onSearch={(value) => void navigate({ search: { search: value } })} />
      <ListStates
        query={dashboards}
        what="dashboards"
        rowsOf={(data) => data.results}
        empty={
          <p>
            {search
              ? 'No dashboard matches this search.'
              : 'No dashboards yet. Create one above, then add saved insights to it from their pages.'}
          </p>
        }
      >
        {(data) => (
          <DataTable
            label="Dashboards"
            rows={data.results}
            rowKey={(d) => d.id}
            columns={[
              {
                header: 'Name',
                cell: (d) => (
                  <Link to="/project/$projectId/dashboards/$id" params={{ projectId, id: String(d.id) }} search={{}}>
                    {d.name || `Dashboard ${d.id}`}
                  </Link>
                ),
              },
              { header: 'Description', cell: (d) => d.description },
            ]}
          />
        )}
      </ListStates>
    </>
  )
}

function NewDashboardForm({ projectId }: { projectId: string }) {
  const [name, setName] = useState('')
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const create = useMutation({
    mutationFn: () => trpc.dashboards.create.mutate({ project_id: projectId, name: name.trim() }),
    onSuccess: async (dashboard) => {
      await queryClient.invalidateQueries({ queryKey: ['dashboards', projectId] })
      await navigate({ to: '/project/$projectId/dashboards/$id', params: { projectId, id: String(dashboard.id) }, search: {} })
    },
  })
  return (
    <form
      className="toolbar notice"
      aria-label="New dashboard"
      onSubmit={(e) => {
        e.preventDefault()
        create.mutate()
      }}
    >
      <label className="field">
        <span>Dashboard name</span>
        <input required value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <button type="submit" className="primary" disabled={create.isPending}>
        Create dashboard
      </button>
      {create.isError && <Refusal error={create.error} />}
    </form>
  )
}

const DATE_FILTERS = [
  ['', 'Each insight’s own dates'],
  ['-24h', 'Last 24 hours'],
  ['-7d', 'Last 7 days'],
  ['-30d', 'Last 30 days'],
  ['-90d', 'Last 90 days'],
  ['all', 'All time'],
] as const

/** `/project/:id/dashboards/:id`: a dashboard's tiles (insights, text cards), a date filter in the URL, refresh. */
export function DashboardPage(): React.JSX.Element {
  const { projectId, id } = useParams({ from: '/project/$projectId/dashboards/$id' })
  const search = useSearch({ from: '/project/$projectId/dashboards/$id' })
  const filters: DashboardFilters = { dateFrom: search.date_from, property: search.property, value: search.value }
  const navigate = useNavigate({ from: '/project/$projectId/dashboards/$id' })
  const queryClient = useQueryClient()
  const [refresh, setRefresh] = useState(0)
  // One dialog for the page: the persons behind a number of any tile.
  const [persons, setPersons] = useState<Opened>()
  const dashboard = useQuery({
    queryKey: ['dashboard', projectId, id],
    queryFn: ({ signal }) => trpc.dashboards.get.query({ project_id: projectId, id }, { signal }),
  })
  const change = useMutation({
    mutationFn: (tiles: Parameters<typeof trpc.dashboards.update.mutate>[0]['data']['tiles']) =>
      trpc.dashboards.update.mutate({ project_id: projectId, id, data: { tiles } }),
    onSuccess: () => dashboard.refetch(),
  })
  const remove = useMutation({
    mutationFn: () => trpc.dashboards.update.mutate({ project_id: projectId, id, data: { deleted: true } }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['dashboards', projectId] })
      await navigate({ to: '/project/$projectId/dashboards', params: { projectId }, search: {} })
    },
  })
  if (dashboard.isPending) return <Loading what="the dashboard" />
  if (dashboard.isError) return <ErrorNotice error={dashboard.error} retry={() => void dashboard.refetch()} />
  const tiles = [...dashboard.data.tiles].sort((a, b) => a.order - b.order)
  return (
    <>
      <div className="row spread">
        <h1>{dashboard.data.name || `Dashboard ${id}`}</h1>
        <div className="row">
          <Link to="/project/$projectId/dashboards" params={{ projectId }} search={{}}>
            All dashboards
          </Link>
          <button
            type="button"
            className="danger"
            disabled={remove.isPending}
            onClick={() => {
              if (window.confirm('Delete this dashboard? Its insights stay saved.')) remove.mutate()
            }}
          >
            Delete dashboard
          </button>
        </div>
      </div>
      {remove.isError && <Refusal error={remove.error} />}
      {dashboard.data.description && <p className="muted">{dashboard.data.description}</p>}
      <div className="toolbar">
        <label className="field">
          <span>Date range</span>
          <select
            value={filters.dateFrom ?? ''}
            onChange={(e) => void navigate({ search: (prev) => ({ ...prev, date_from: e.target.value || undefined }) })}
          >
            {DATE_FILTERS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <PropertyFilterForm
          key={`${filters.property ?? ''}=${filters.value ?? ''}`}
          property={filters.property}
          value={filters.value}
          onApply={(property, value) => void navigate({ search: (prev) => ({ ...prev, property, value }) })}
        />
        <button
          type="button"
          onClick={() => {
            setRefresh(refresh + 1)
            void dashboard.refetch()
          }}
        >
          Refresh
        </button>
      </div>
      {tiles.length === 0 ? (
        <div className="notice muted">
          <p>
            This dashboard has no tiles yet. Open a saved insight from{' '}
            <Link to="/project/$projectId/insights" params={{ projectId }} search={{}}>
              Insights
            </Link>{' '}
            and add it here, or add a text card below.
          </p>
        </div>
      ) : (
        <div className="tiles">
          {tiles.map((tile, index) => (
            <TileCard
              key={tile.id}
              projectId={projectId}
              tile={tile}
              filters={filters}
              refresh={refresh}
              place={{ index, count: tiles.length, busy: change.isPending }}
              onMove={(from, to) =>
                change.mutate(
                  layoutsInOrder(
                    moveTile(
                      tiles.map((t) => t.id),
                      from,
                      to,
                    ),
                  ),
                )
              }
              onRemove={() => change.mutate([{ id: tile.id, deleted: true }])}
              onPoint={(source, chosen) => setPersons({ source, chosen })}
            />
          ))}
        </div>
      )}
      {change.isError && <Refusal error={change.error} />}
      <TextCardForm projectId={projectId} id={id} onAdded={() => void dashboard.refetch()} />
      <ActorsDialog projectId={projectId} opened={persons} onClose={() => setPersons(undefined)} />
    </>
  )
}

/** A tile's query and the number of it whose persons are shown. */
interface Opened {
  source: InsightSource
  chosen: ChosenPoint
}

/** Where a tile stands among the dashboard's, for moving it. */
interface Place {
  index: number
  count: number
  busy: boolean
}

/**
 * One tile: an insight drawn with the builder's charts, or a text card. It can be dragged onto
 * another tile's place, or moved with its buttons (the same, from the keyboard), or removed.
 */
function TileCard({
  projectId,
  tile,
  filters,
  refresh,
  place,
  onMove,
  onRemove,
  onPoint,
}: {
  projectId: string
  tile: Tile
  filters: DashboardFilters
  refresh: number
  place: Place
  onMove: (from: number, to: number) => void
  onRemove: () => void
  onPoint: (source: InsightSource, chosen: ChosenPoint) => void
}) {
  const insight = tile.insight
  if (!tile.text && !insight) return null
  const name = tile.text ? 'text card' : insight!.name || insight!.derived_name || 'Untitled'
  const drag = {
    draggable: true,
    onDragStart: (e: React.DragEvent) => e.dataTransfer.setData('text/x-tile-index', String(place.index)),
    onDragOver: (e: React.DragEvent) => {
      if (e.dataTransfer.types.includes('text/x-tile-index')) e.preventDefault()
    },
    onDrop: (e: React.DragEvent) => {
      e.preventDefault()
      const from = Number(e.dataTransfer.getData('text/x-tile-index'))
      // The dragged tile takes this one's place.
      if (Number.isInteger(from) && from !== place.index) onMove(from, place.index)
    },
  }
  const controls = (
    <div className="row tile-controls">
      <button
        type="button"
        disabled={place.busy || place.index === 0}
        onClick={() => onMove(place.index, place.index - 1)}
        aria-label={`Move ${name} earlier`}
      >
        ←
      </button>
      <button
        type="button"
        disabled={place.busy || place.index === place.count - 1}
        onClick={() => onMove(place.index, place.index + 1)}
        aria-label={`Move ${name} later`}
      >
        →
      </button>
      <button type="button" className="danger" disabled={place.busy} onClick={onRemove} aria-label={`Remove ${name} from the dashboard`}>
        Remove
      </button>
    </div>
  )
  if (tile.text) {
    return (
      <article className="tile notice" aria-label="Text card" {...drag}>
        {controls}
        <p className="text-card">{tile.text.body}</p>
      </article>
    )
  }
  return (
    <article className="tile notice" aria-labelledby={`tile-${tile.id}`} {...drag}>
      <div className="row spread">
        <h2 id={`tile-${tile.id}`}>
          <Link to="/project/$projectId/insights/$shortId" params={{ projectId, shortId: insight!.short_id }} search={{}}>
            {name}
          </Link>
        </h2>
        {controls}
      </div>
      <TileResult projectId={projectId} query={insight!.query} filters={filters} refresh={refresh} title={name} onPoint={onPoint} />
    </article>
  )
}

function TileResult({
  projectId,
  query,
  filters,
  refresh,
  title,
  onPoint,
}: {
  projectId: string
  query: Record<string, unknown> | null
  filters: DashboardFilters
  refresh: number
  title: string
  onPoint: (source: InsightSource, chosen: ChosenPoint) => void
}) {
  const saved = sourceOfInsight(query)
  const source = saved && withPropertyFilter(withDateRange(saved, filters.dateFrom), filters.property, filters.value)
  const result = useInsightResult(projectId, source, refresh)
  if (!source) return <p className="muted">{undrawnInsight(query)}</p>
  if (result.isPending) return <Loading what={title} />
  if (result.isError) return <ErrorNotice error={result.error} retry={() => void result.refetch()} />
  // The tile's own query, with the dashboard's filters: its persons are those of the number shown.
  return <InsightResult source={source} results={result.data.results} title={title} onPoint={(chosen) => onPoint(source, chosen)} />
}

/** What a dashboard's URL filters its tiles by: a date range, and an event property equal to a value. */
interface DashboardFilters {
  dateFrom: string | undefined
  property: string | undefined
  value: string | undefined
}

function TextCardForm({ projectId, id, onAdded }: { projectId: string; id: string; onAdded: () => void }) {
  const [body, setBody] = useState('')
  const add = useMutation({
    mutationFn: () => trpc.dashboards.update.mutate({ project_id: projectId, id, data: { tiles: [{ text: { body } }] } }),
    onSuccess: () => {
      setBody('')
      onAdded()
    },
  })
  return (
    <form
      className="stack"
      aria-label="New text card"
      onSubmit={(e) => {
        e.preventDefault()
        add.mutate()
      }}
    >
      <label className="field">
        <span>Text card</span>
        <textarea required maxLength={4000} rows={3} value={body} onChange={(e) => setBody(e.target.value)} />
      </label>
      <div className="row">
        <button type="submit" disabled={add.isPending}>
          Add text card
        </button>
      </div>
      {add.isError && <Refusal error={add.error} />}
    </form>
  )
}
