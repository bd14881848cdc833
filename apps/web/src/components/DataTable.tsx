import type { ReactNode } from 'react'

/** One column of a DataTable: its heading (a node, so that it may be read only by screen readers) and each row's cell. */
export interface Column<T> {
  header: ReactNode
  cell: (row: T) => ReactNode
}

/**
 * A list page's rows as a table named for assistive technology, its headings scoped to their
 * columns, scrolling sideways in a narrow window rather than widening the page.
 */
export function DataTable<T>({
  label,
  columns,
  rows,
  rowKey,
}: {
  label: string
  columns: readonly Column<T>[]
  rows: readonly T[]
  rowKey: (row: T) => string | number
}): React.JSX.Element {
  return (
    <div className="table-wrap">
      <table aria-label={label}>
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th key={i} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column, i) => (
                <td key={i}>{column.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
