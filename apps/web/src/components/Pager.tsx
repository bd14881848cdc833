/**
 * Where a page of a long list stands ("101–200 of 345") with buttons to the pages before and
 * after it. Nothing is shown while the whole list fits on one page. A list whose length is not
 * known (the persons behind a count of events) gives `more` instead of `count`: "101–200".
 */
export function Pager({
  what,
  offset,
  limit,
  shown,
  count,
  more = false,
  onOffset,
}: {
  /** What the list holds, for the buttons' names ("people"). */
  what: string
  offset: number
  limit: number
  /** Rows on this page. */
  shown: number
  /** Rows in the whole list, when known. */
  count?: number
  /** Without `count`: whether rows follow this page. */
  more?: boolean
  onOffset: (offset: number) => void
}) {
  const last = offset + shown
  const atEnd = count === undefined ? !more : last >= count
  if (offset === 0 && atEnd) return null
  // From past the end (a URL may ask for any offset), back is the last page.
  const back = count !== undefined && offset >= count ? Math.max(0, Math.ceil(count / limit) - 1) * limit : Math.max(0, offset - limit)
  const of = count === undefined ? '' : ` of ${count}`
  return (
    <nav className="row" aria-label={`Pages of ${what}`}>
      <span className="muted" role="status">
        {shown === 0 ? `None${of} here` : `${offset + 1}–${last}${of}`}
      </span>
      <button type="button" disabled={offset === 0} onClick={() => onOffset(back)}>
        Previous {limit}
      </button>
      <button type="button" disabled={atEnd} onClick={() => onOffset(offset + limit)}>
        Next {limit}
      </button>
    </nav>
  )
}
