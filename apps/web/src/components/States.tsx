import { errorWords } from '../api'

/** Said while a page's data is on its way; announced to screen readers. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  )
}

/** What a page shows when there is nothing yet, with what to do about it. */
export function Empty({ children }: { children: React.ReactNode }) {
  return <div className="notice muted">{children}</div>
}

/** A failed call, in the service's own words, with a way to try again. */
export function ErrorNotice({ error, retry }: { error: unknown; retry?: () => void }) {
  return (
    <div className="notice error" role="alert">
      <p>{errorWords(error)}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  )
}
