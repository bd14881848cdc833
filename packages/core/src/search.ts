/** More terms than anyone types; beyond them a search would only lengthen the query. */
const MAX_TERMS = 50

/**
 * A `search` parameter as PostHog's term search reads it: the words between spaces, each of
 * which must match (`term_search_filter_sql`). NUL characters, which no stored text holds, are dropped.
 */
export function searchTerms(search: string | undefined): string[] {
  if (!search) return []
  return search
    .replaceAll('\0', '')
    .split(' ')
    .filter((term) => term !== '')
    .slice(0, MAX_TERMS)
}
