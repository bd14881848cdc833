import type { UseQueryResult } from '@tanstack/react-query'
import { errorWords } from '../api'
import { cellText, errorPosition, sqlAnswerOf } from '../sql'
import { DataTable } from './DataTable'
import { Empty, Loading } from './States'

const count = new Intl.NumberFormat('en-US')

/**
 * What the SQL page shows under its editor: a hint before any query, the answer's rows under
 * the names of its columns, or the service's refusal in its own words, with the place in the
 * query it names (and a button that puts the cursor there).
 */
export function SqlResult({
  query,
  answer,
  onShowError,
}: {
  /** The query run (the URL's), if any. */
  query: string | undefined
  answer: UseQueryResult<unknown>
  onShowError: () => void
}): React.JSX.Element {
  if (query === undefined || query.trim() === '')
    return (
      <Empty>
        <p>
          Write a query and run it, for example <code>select event, count() from events group by event</code>.
        </p>
      </Empty>
    )
  if (answer.isPending) return <Loading what="the answer" />
  if (answer.isError) {
    const words = errorWords(answer.error)
    const at = errorPosition(words, query)
    return (
      <div className="notice error" role="alert">
        <p>{words}</p>
        {at && (
          <button type="button" onClick={onShowError}>
            Go to line {at.line}, column {at.column}
          </button>
        )}
      </div>
    )
  }
  const { columns, results, hasMore } = sqlAnswerOf(answer.data)
  if (results.length === 0)
    return (
      <Empty>
        <p>The query answered no rows.</p>
      </Empty>
    )
  const rows = results.map((cells, i) => ({ i, cells }))
  return (
    <section aria-labelledby="sql-result-title" className="stack">
      <h2 id="sql-result-title">
        Result <span className="muted">({results.length === 1 ? '1 row' : `${count.format(results.length)} rows`})</span>
      </h2>
      {hasMore && <p className="muted">The query has more rows than these: add a LIMIT, or narrow it.</p>}
      <DataTable
        label="Query result"
        rows={rows}
        rowKey={(row) => row.i}
        columns={columns.map((name, c) => ({ header: name, cell: (row: (typeof rows)[number]) => cellText(row.cells[c]) }))}
      />
    </section>
  )
}
