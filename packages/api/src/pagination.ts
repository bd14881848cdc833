import type { CursorPage, Page } from '@burrow/contracts'

/**
 * The request's URL for a link of its envelope, without the personal API key a client may have
 * put in the query: links are logged, shared and followed by other tools.
 */
function linkBase(requestUrl: URL): URL {
  const url = new URL(requestUrl)
  url.searchParams.delete('personal_api_key')
  return url
}

export interface Envelope<T> {
  count: number
  next: string | null
  previous: string | null
  results: T[]
}

/**
 * The list envelope with absolute `next`/`previous` links, made as DRF's LimitOffsetPagination
 * makes them: the request's URL with `limit` and `offset` replaced, `offset` dropped when the
 * previous page starts at 0. A page that names its next page's parameters (keyset paging)
 * gets those in `next` instead of an offset.
 */
export function toEnvelope<T>(page: Page<T>, requestUrl: URL): Envelope<T> {
  const link = (offset: number) => {
    const url = linkBase(requestUrl)
    url.searchParams.set('limit', String(page.limit))
    if (offset > 0) url.searchParams.set('offset', String(offset))
    else url.searchParams.delete('offset')
    return url.toString()
  }
  const keyset = (params: Record<string, string>) => {
    const url = new URL(requestUrl)
    url.searchParams.set('limit', String(page.limit))
    url.searchParams.delete('offset')
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value)
    return url.toString()
  }
  const hasNext = page.offset + page.limit < page.count
  return {
    count: page.count,
    next: !hasNext ? null : page.next_params ? keyset(page.next_params) : link(page.offset + page.limit),
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
    const url = linkBase(requestUrl)
    url.searchParams.set('cursor', cursor)
    return url.toString()
  }
  return { next: link(page.next_cursor), previous: link(page.previous_cursor), results: page.results }
}
