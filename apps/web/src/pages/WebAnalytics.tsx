import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { PropertyFilterForm } from '../components/PropertyFilterForm'
import { ListStates, Empty, ErrorNotice, Loading } from '../components/States'
import { BreakdownTabs, OverviewTiles, StatsTable } from '../components/WebStats'
import {
  DATE_PRESETS,
  DEFAULT_TAB,
  noViews,
  overviewQuery,
  dayOf,
  isCustom,
  presetOf,
  rangeOf,
  rowsOf,
  tableQuery,
  tabLabels,
  tilesOf,
} from '../webAnalytics'
import { useWebQuery } from '../webHooks'

const FROM = '/project/$projectId/web'
/** The date range select's choice for a range of days of one's own. */
const CUSTOM = 'custom'

/** The calendar day `days` days before today, as `YYYY-MM-DD`: where a new custom range starts. */
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10)

/**
 * `/project/:id/web`: PostHog's web analytics overview (visitors, page views, sessions, session
 * duration, bounce rate, each beside the previous period's) and one breakdown table at a time;
 * the date range (`?date_from=`) and the tab (`?tab=`) are kept in the URL.
 */
export function WebAnalytics(): React.JSX.Element {
  const { projectId } = useParams({ from: FROM })
  const search = useSearch({ from: FROM })
  const navigate = useNavigate({ from: FROM })
  const range = rangeOf(search.date_from, search.date_to)
  const custom = isCustom(range)
  const tab = search.tab ?? DEFAULT_TAB
  const filter = { property: search.property, value: search.value }
  const overview = useWebQuery(projectId, overviewQuery(range, filter))
  const table = useWebQuery(projectId, tableQuery(range, tab, filter))
  const rangeLabel = custom
    ? `${range.from} to ${range.to ?? 'today'}`
    : (DATE_PRESETS.find(([p]) => p === range.from)?.[1] ?? '').toLowerCase()
  const setRange = (dateFrom: string | undefined, dateTo: string | undefined) =>
    void navigate({ search: (prev) => ({ ...prev, date_from: dateFrom, date_to: dateTo }), replace: true })
  return (
    <>
      <div className="row spread">
        <h1>Web analytics</h1>
        <div className="row">
          <label className="row">
            Date range
            <select
              value={custom ? CUSTOM : range.from}
              onChange={(event) =>
                event.target.value === CUSTOM ? setRange(daysAgo(7), undefined) : setRange(presetOf(event.target.value), undefined)
              }
            >
              {DATE_PRESETS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
              <option value={CUSTOM}>Custom range</option>
            </select>
          </label>
          {custom && (
            <>
              <label className="row">
                From
                <input
                  type="date"
                  value={range.from}
                  max={range.to}
                  onChange={(e) => setRange(dayOf(e.target.value) ?? range.from, range.to)}
                />
              </label>
              <label className="row">
                To
                <input type="date" value={range.to ?? ''} min={range.from} onChange={(e) => setRange(range.from, dayOf(e.target.value))} />
              </label>
            </>
          )}
        </div>
      </div>
      <PropertyFilterForm
        key={`${filter.property ?? ''}=${filter.value ?? ''}`}
        property={filter.property}
        value={filter.value}
        onApply={(property, value) => void navigate({ search: (prev) => ({ ...prev, property, value }), replace: true })}
      />
      {overview.isPending ? (
        <Loading what="the overview" />
      ) : overview.isError ? (
        <ErrorNotice error={overview.error} retry={() => void overview.refetch()} />
      ) : noViews(overview.data) ? (
        <Empty>
          <p>No page views yet ({rangeLabel}).</p>
          <p>
            posthog-js sends a <code>$pageview</code> each time a page of your site loads: add its snippet, shown in{' '}
            <Link to="/project/$projectId/settings" params={{ projectId }}>
              Settings
            </Link>
            , to your pages.
          </p>
        </Empty>
      ) : (
        <OverviewTiles tiles={tilesOf(overview.data)} />
      )}
      <section className="web-breakdown" aria-labelledby="web-breakdown-heading">
        <h2 id="web-breakdown-heading" className="visually-hidden">
          Breakdown
        </h2>
        <BreakdownTabs tab={tab} onChoose={(next) => void navigate({ search: (prev) => ({ ...prev, tab: next }), replace: true })} />
        <div id="web-panel" role="tabpanel" aria-labelledby={`web-tab-${tab}`}>
          <ListStates
            query={table}
            what={tabLabels(tab).label.toLowerCase()}
            rowsOf={rowsOf}
            empty={<p>No page views with a value for this table in the date range.</p>}
          >
            {(data) => <StatsTable tab={tab} rows={rowsOf(data)} />}
          </ListStates>
        </div>
      </section>
    </>
  )
}
