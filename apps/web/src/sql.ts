// The SQL page's logic apart from its editor: the query it sends, where an error points in the
// text, and how an answer's values are written in its table.

/** What the editor holds on a first visit: the events of the last day, newest first. */
export const DEFAULT_SQL =
  'select event, count() as count\nfrom events\nwhere timestamp > now() - interval 1 day\ngroup by event\norder by count desc'

/** PostHog's HogQLQuery for the editor's text, as `/query/` takes it. */
export function hogqlQuery(text: string): { kind: 'HogQLQuery'; query: string } {
  return { kind: 'HogQLQuery', query: text }
}

/** Where in the text an error points: line and column from 1, and the offset into the text from 0. */
export interface ErrorPosition {
  line: number
  column: number
  offset: number
}

/**
 * The place an error names in the query, when its words name one: the service writes a syntax
 * error as "SyntaxError in the query (line 2, column 7): …" (PostHog's start of the error, the
 * column counted from 1). A place past the end of the text is its end.
 */
export function errorPosition(detail: string, text: string): ErrorPosition | undefined {
  const match = /\(line (\d+), column (\d+)\)/.exec(detail)
  if (!match) return undefined
  const line = Number(match[1])
  const column = Number(match[2])
  const lines = text.split('\n')
  if (line < 1 || column < 1 || line > lines.length) return undefined
  const before = lines.slice(0, line - 1).reduce((sum, l) => sum + l.length + 1, 0)
  return { line, column, offset: before + Math.min(column - 1, lines[line - 1]!.length) }
}

/** A value of an answer's row as its cell shows it: text as it is, numbers and the rest as JSON, null as "null". */
export function cellText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined) return ''
  return JSON.stringify(value)
}

/** The rows of a HogQLQuery's answer, with the names of its columns. */
export interface SqlAnswer {
  columns: string[]
  results: unknown[][]
  hasMore: boolean
}

/** A HogQLQuery's answer as the table shows it; anything else (another query's answer) has no columns. */
export function sqlAnswerOf(answer: unknown): SqlAnswer {
  const a = (typeof answer === 'object' && answer !== null ? answer : {}) as Partial<Record<keyof SqlAnswer, unknown>>
  return {
    columns: Array.isArray(a.columns) ? a.columns.map(String) : [],
    results: Array.isArray(a.results) ? a.results.filter(Array.isArray) : [],
    hasMore: a.hasMore === true,
  }
}
