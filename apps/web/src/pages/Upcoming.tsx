import { useLocation } from '@tanstack/react-router'
import { UPCOMING_TITLES } from '../nav'

/** A page whose address is kept already and whose content is not built yet: it says so, and where the data is today. */
export function Upcoming(): React.JSX.Element {
  const page = useLocation().pathname.split('/')[3] ?? ''
  const title = UPCOMING_TITLES[page] ?? 'This page'
  return (
    <>
      <h1>{title}</h1>
      <div className="notice">
        <p>
          {title} is not part of the console yet. Its data is served by the API today: see the API&apos;s description at{' '}
          <a href="/api/schema/">/api/schema/</a>.
        </p>
      </div>
    </>
  )
}
