import { stringify } from 'csv-stringify/sync'

/**
 * Nested objects and arrays as flat columns (`properties.$browser`, `elements.0.tag_name`), the
 * way PostHog's CSV renderer writes them, so a spreadsheet gets one cell per value.
 */
function flatten(value: unknown, prefix: string, into: Record<string, unknown>): void {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value)
    if (entries.length === 0 && prefix) into[prefix] = ''
    for (const [key, inner] of entries) flatten(inner, prefix ? `${prefix}.${key}` : key, into)
    return
  }
  into[prefix] = value
}

/** What a spreadsheet takes for the start of a formula (OWASP's list for CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/

/**
 * Text a spreadsheet would run as a formula, made inert with a leading `'` as OWASP recommends:
 * every cell and column name of an export comes from what clients sent.
 */
export function inertCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text
}

/**
 * Rows as CSV with a header of every column any row has, in order of first appearance (or
 * sorted by name); with no rows, just the header of the given fields.
 */
export function toCsv(rows: unknown[], fieldsWhenEmpty: string[], options: { sortColumns?: boolean | undefined } = {}): string {
  if (rows.length === 0) return fieldsWhenEmpty.length > 0 ? stringify([fieldsWhenEmpty.map(inertCell)]) : ''
  const flat = rows.map((row) => {
    const into: Record<string, unknown> = {}
    flatten(row, '', into)
    return into
  })
  const columns = [...new Set(flat.flatMap((row) => Object.keys(row)))]
  // By code point, as Python's sorted() orders PostHog's header.
  if (options.sortColumns) columns.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  if (columns.length === 0) return ''
  return stringify(flat, {
    header: true,
    columns: columns.map((key) => ({ key, header: inertCell(key) })),
    cast: { boolean: (b) => (b ? 'true' : 'false'), string: inertCell },
  })
}

/** Whether the request asks for CSV: `format=csv`, or an Accept header preferring it. */
export function wantsCsv(url: URL, accept: string | undefined): boolean {
  const format = url.searchParams.get('format')
  if (format) return format.toLowerCase() === 'csv'
  return accept?.split(',')[0]?.trim().startsWith('text/csv') ?? false
}
