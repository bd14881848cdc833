/**
 * Where a page of a long list stands ("101–200 of 345") with buttons to the pages before and
 * after it. Nothing is shown while the whole list fits on one page.
 */
export function Pager({
  what,
  offset,
  limit,
  shown,
  count,
  onOffset,
}: {
  /** What the list holds, for the buttons' names ("people"). */
  what: string
  offset: number
  limit: number
  /** Rows on this page. */
  shown: number
  /** Rows in the whole list. */
  count: number
  onOffset: (offset: number) => void
}) {
  if (offset === 0 && count <= shown) return null
  const last = offset + shown
  // From past the end (a URL may ask for any offset), back is the last page.
  const lastPage = Math.max(0, Math.ceil(count / limit) - 1) * limit
  return (
    <nav className="row" aria-label={`Pages of ${what}`}>
      <span className="muted" role="status">
        {shown === 0 ? `None of ${count} here` : `${offset + 1}–${last} of ${count}`}
      </span>
      <button type="button" disabled={offset === 0} onClick={() => onOffset(offset >= count ? lastPage : Math.max(0, offset - limit))}>
        Previous {limit}
      </button>
      <button type="button" disabled={last >= count} onClick={() => onOffset(offset + limit)}>
        Next {limit}
      </button>
    </nav>
  )
}
