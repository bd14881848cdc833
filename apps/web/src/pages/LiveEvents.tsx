import { Link, useNavigate, useParams, useSearch } from '@tanstack/react-router'
import { useState } from 'react'
import { Dialog } from '../components/Dialog'
import { ListStates } from '../components/States'
import { useLiveEvents, useMe, type EventFilters } from '../hooks'

type LiveEvent = NonNullable<ReturnType<typeof useLiveEvents>['data']>['results'][number]

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' })

/** `/project/:id/events`: the newest events first, new ones appearing as they are stored; filters in the URL. */
export function LiveEvents(): React.JSX.Element {
  const { projectId } = useParams({ from: '/project/$projectId/events' })
  const filters = useSearch({ from: '/project/$projectId/events' })
  const navigate = useNavigate({ from: '/project/$projectId/events' })
  const [live, setLive] = useState(true)
  const [opened, setOpened] = useState<LiveEvent>()
  const events = useLiveEvents(projectId, filters, live)
  const eventNames = useMe().data?.team?.event_names ?? []

  const apply = (next: EventFilters) => void navigate({ search: next })
  const filtered = Object.values(filters).some((v) => v !== undefined)

  return (
    <>
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <h1>Live events</h1>
        <div className="row">
          <span className="muted" role="status">
            <span className={live ? 'live-dot' : 'live-dot paused'} aria-hidden="true" />
            {live ? 'Live: new events appear as they arrive' : 'Paused'}
          </span>
          <button type="button" aria-pressed={!live} onClick={() => setLive(!live)}>
            {live ? 'Pause' : 'Resume'}
          </button>
        </div>
      </div>
      <FilterBar filters={filters} eventNames={eventNames} onApply={apply} />
      <ListStates
        query={events}
        what="events"
        rowsOf={(data) => data.results}
        empty={
          filtered ? (
            <p>No event matches these filters.</p>
          ) : (
            <p>
              No events yet. Send one with posthog-js or posthog-node: the project&apos;s token and snippet are in{' '}
              <Link to="/project/$projectId/settings" params={{ projectId }}>
                Settings
              </Link>
              .
            </p>
          )
        }
      >
        {(data) => (
          <div className="table-wrap">
            <table aria-label="Events, newest first">
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Person</th>
                  <th scope="col">URL or screen</th>
                  <th scope="col">Time</th>
                </tr>
              </thead>
              <tbody>
                {data.results.map((event) => (
                  <tr key={event.id}>
                    <td>
                      <button type="button" className="link" onClick={() => setOpened(event)}>
                        {event.event}
                      </button>
                    </td>
                    <td>
                      <Link to="/project/$projectId/persons" params={{ projectId }} search={{ search: event.distinct_id }}>
                        {personLabel(event)}
                      </Link>
                    </td>
                    <td className="muted">{urlOrScreen(event)}</td>
                    <td>
                      <time dateTime={event.timestamp}>{timeFormat.format(new Date(event.timestamp))}</time>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListStates>
      <Dialog open={opened !== undefined} title={opened?.event ?? ''} onClose={() => setOpened(undefined)}>
        <pre tabIndex={0} aria-label="The event as JSON">
          {JSON.stringify(opened, null, 2)}
        </pre>
      </Dialog>
    </>
  )
}

function personLabel(event: LiveEvent): string {
  const props = event.person?.properties
  const name = props?.email ?? props?.name
  return typeof name === 'string' && name !== '' ? name : event.distinct_id
}

function urlOrScreen(event: LiveEvent): string {
  const value = event.properties.$current_url ?? event.properties.$screen_name ?? ''
  return typeof value === 'string' ? value : ''
}

/** The filters as a form: applied (into the URL) when submitted, so that typing does not query at each key. */
function FilterBar({
  filters,
  eventNames,
  onApply,
}: {
  filters: EventFilters
  eventNames: string[]
  onApply: (next: EventFilters) => void
}) {
  const [draft, setDraft] = useState<EventFilters>(filters)
  const set = (key: keyof EventFilters) => (e: React.ChangeEvent<HTMLInputElement>) => setDraft({ ...draft, [key]: e.target.value })
  const clean = (f: EventFilters): EventFilters => ({
    event: f.event?.trim() || undefined,
    distinct_id: f.distinct_id?.trim() || undefined,
    property: f.property?.trim() || undefined,
    value: f.property?.trim() ? f.value : undefined,
  })
  return (
    <form
      className="toolbar"
      aria-label="Filter events"
      onSubmit={(e) => {
        e.preventDefault()
        onApply(clean(draft))
      }}
    >
      <label className="field">
        <span>Event name</span>
        <input list="event-names" value={draft.event ?? ''} onChange={set('event')} />
        <datalist id="event-names">
          {eventNames.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      </label>
      <label className="field">
        <span>Person (distinct id)</span>
        <input value={draft.distinct_id ?? ''} onChange={set('distinct_id')} />
      </label>
      <label className="field">
        <span>Property</span>
        <input value={draft.property ?? ''} onChange={set('property')} placeholder="$browser" />
      </label>
      <label className="field">
        <span>equals</span>
        <input value={draft.value ?? ''} onChange={set('value')} />
      </label>
      <button type="submit" className="primary">
        Apply filters
      </button>
      <button
        type="button"
        onClick={() => {
          setDraft({})
          onApply({})
        }}
      >
        Clear
      </button>
    </form>
  )
}
