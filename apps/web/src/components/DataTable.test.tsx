// @vitest-environment happy-dom
import { cleanup, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { DataTable } from './DataTable'

afterEach(cleanup)

describe('DataTable', () => {
  it('names the table, heads each column and gives each row its cells in column order', () => {
    const rows = [
      { id: 1, key: 'beta', rollout: 50 },
      { id: 2, key: 'new-nav', rollout: 100 },
    ]
    render(
      <DataTable
        label="Feature flags"
        rows={rows}
        rowKey={(row) => row.id}
        columns={[
          { header: 'Key', cell: (row) => <code>{row.key}</code> },
          { header: <span className="visually-hidden">Rollout</span>, cell: (row) => `${row.rollout}%` },
        ]}
      />,
    )
    const table = screen.getByRole('table', { name: 'Feature flags' })
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['Key', 'Rollout'])
    const bodyRows = within(table).getAllByRole('row').slice(1)
    expect(
      bodyRows.map((tr) =>
        within(tr)
          .getAllByRole('cell')
          .map((td) => td.textContent),
      ),
    ).toEqual([
      ['beta', '50%'],
      ['new-nav', '100%'],
    ])
  })

  it('draws an empty body for no rows, keeping the headings', () => {
    render(<DataTable label="People" rows={[]} rowKey={() => 0} columns={[{ header: 'Person', cell: () => null }]} />)
    const table = screen.getByRole('table', { name: 'People' })
    expect(within(table).getAllByRole('row')).toHaveLength(1)
  })
})
