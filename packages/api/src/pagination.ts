import type { CursorPage, Page } from '@burrow/contracts'

export interface Envelope<T> {
  count: number
  next: string | null
  previous: string | null
  results: T[]
}

/**
 * The list envelope with absolute `next`/`previous` links, made as DRF's LimitOffsetPagination
 * makes them: the request's URL with `limit` and `offset` replaced, `offset` dropped when the
 * previous page starts at 0.
 */
export function toEnvelope<T>(page: Page<T>, requestUrl: URL): Envelope<T> {
  const link = (offset: number) => {
    const url = new URL(requestUrl)
    url.searchParams.set('limit', String(page.limit))
    if (offset > 0) url.searchParams.set('offset', String(offset))
    else url.searchParams.delete('offset')
    return url.toString()
  }
  return {
    count: page.count,
    next: page.offset + page.limit < page.count ? link(page.offset + page.limit) : null,
    previous: page.offset > 0 ? link(Math.max(0, page.offset - page.limit)) : null,
    results: page.results,
  }
}

export interface CursorEnvelope<T> {
  next: string | null
  previous: string | null
  results: T[]
}

/** The envelope of DRF's CursorPagination: the request's URL with `cursor` replaced, and no count. */
export function toCursorEnvelope<T>(page: CursorPage<T>, requestUrl: URL): CursorEnvelope<T> {
  const link = (cursor: string | null) => {
    if (cursor === null) return null
    const url = new URL(requestUrl)
    url.searchParams.set('cursor', cursor)
    return url.toString()
  }
  return { next: link(page.next_cursor), previous: link(page.previous_cursor), results: page.results }
}
