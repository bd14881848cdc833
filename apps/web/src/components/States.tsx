import type { UseQueryResult } from '@tanstack/react-query'
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

/** A change the service refused, in its own words, announced to screen readers. */
export function Refusal({ error }: { error: unknown }) {
  return (
    <p className="error" role="alert">
      {errorWords(error)}
    </p>
  )
}

/**
 * A list's states before its rows: loading, failed (with a retry) and empty; the rows are drawn
 * by `children` only once there are some.
 */
export function ListStates<T>({
  query,
  what,
  rowsOf,
  empty,
  children,
}: {
  query: UseQueryResult<T>
  what: string
  rowsOf: (data: T) => readonly unknown[]
  empty: React.ReactNode
  children: (data: T) => React.ReactNode
}) {
  if (query.isPending) return <Loading what={what} />
  if (query.isError) return <ErrorNotice error={query.error} retry={() => void query.refetch()} />
  if (rowsOf(query.data).length === 0) return <Empty>{empty}</Empty>
  return <>{children(query.data)}</>
}
