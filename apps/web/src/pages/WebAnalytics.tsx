import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { ListStates, Empty, ErrorNotice, Loading } from '../components/States'
import { BreakdownTabs, OverviewTiles, StatsTable } from '../components/WebStats'
import {
  DATE_PRESETS,
  DEFAULT_PRESET,
  DEFAULT_TAB,
  noViews,
  overviewQuery,
  presetOf,
  rowsOf,
  tableQuery,
  tabLabels,
  tilesOf,
} from '../webAnalytics'
import { useWebQuery } from '../webHooks'

const FROM = '/project/$projectId/web'

/**
 * `/project/:id/web`: PostHog's web analytics overview (visitors, page views, sessions, session
 * duration, bounce rate, each beside the previous period's) and one breakdown table at a time;
 * the date range (`?date_from=`) and the tab (`?tab=`) are kept in the URL.
 */
export function WebAnalytics(): React.JSX.Element {
  const { projectId } = useParams({ from: FROM })
  const search = useSearch({ from: FROM })
  const navigate = useNavigate({ from: FROM })
  const preset = presetOf(search.date_from) ?? DEFAULT_PRESET
  const tab = search.tab ?? DEFAULT_TAB
  const overview = useWebQuery(projectId, overviewQuery(preset))
  const table = useWebQuery(projectId, tableQuery(preset, tab))
  const presetLabel = DATE_PRESETS.find(([p]) => p === preset)?.[1] ?? ''
  return (
    <>
      <div className="row spread">
        <h1>Web analytics</h1>
        <label className="row">
          Date range
          <select
            value={preset}
            onChange={(event) => void navigate({ search: (prev) => ({ ...prev, date_from: presetOf(event.target.value) }), replace: true })}
          >
            {DATE_PRESETS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {overview.isPending ? (
        <Loading what="the overview" />
      ) : overview.isError ? (
        <ErrorNotice error={overview.error} retry={() => void overview.refetch()} />
      ) : noViews(overview.data) ? (
        <Empty>
          <p>No page views yet ({presetLabel.toLowerCase()}).</p>
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
