import { useState, type ReactNode } from 'react'

/**
 * A chart with its "Show as table" switch: every chart of the console is readable as a table too.
 * `table` and `chart` are drawn only when shown.
 */
export function TableToggle({ table, chart }: { table: () => ReactNode; chart: () => ReactNode }) {
  const [asTable, setAsTable] = useState(false)
  return (
    <div className="stack-wide">
      <div className="row">
        <button type="button" aria-pressed={asTable} onClick={() => setAsTable(!asTable)}>
          Show as table
        </button>
      </div>
      {asTable ? table() : chart()}
    </div>
  )
}
