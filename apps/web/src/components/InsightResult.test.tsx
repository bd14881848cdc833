// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { ChosenPoint } from '../insightActors'
import { InsightResult } from './InsightResult'

afterEach(cleanup)

const cells = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent))

describe('an insight drawn from its /query/ answer', () => {
  it("shows a funnel broken down as one list of steps per value, each step's persons and conversions", () => {
    const step = (name: string, count: number, value: string) => ({ name, custom_name: null, count, order: 0, breakdown_value: [value] })
    render(
      <InsightResult
        source={{ kind: 'FunnelsQuery' }}
        title="Checkout"
        results={[
          [step('signed up', 4, 'Chrome'), step('order placed', 1, 'Chrome')],
          [step('signed up', 2, 'Safari'), step('order placed', 2, 'Safari')],
        ]}
      />,
    )
    expect(cells(screen.getByRole('table', { name: 'Checkout steps: Chrome' }))).toEqual([
      ['1. signed up', '4', '100.0%', '—'],
      ['2. order placed', '1', '25.0%', '25.0%'],
    ])
    expect(cells(screen.getByRole('table', { name: 'Checkout steps: Safari' }))[1]).toEqual(['2. order placed', '2', '100.0%', '100.0%'])
  })

  it('draws a pie of the totals, each slice its share, with the numbers in a table', () => {
    const { container } = render(
      <InsightResult
        source={{ kind: 'TrendsQuery', trendsFilter: { display: 'ActionsPie' } }}
        title="Browsers"
        results={[
          { label: 'Chrome', aggregated_value: 3, data: [] },
          { label: 'Safari', aggregated_value: 1, data: [] },
        ]}
      />,
    )
    expect(screen.getByRole('img').getAttribute('aria-label')).toBe('Browsers: Chrome 75.0%, Safari 25.0%')
    expect([...container.querySelectorAll('path')].map((p) => p.getAttribute('data-series'))).toEqual(['Chrome', 'Safari'])
    expect(cells(screen.getByRole('table', { name: 'Browsers' }))).toEqual([
      ['Chrome', '3'],
      ['Safari', '1'],
    ])
  })

  it('shows retention as cohorts by date with the share of each that came back', () => {
    const values = (...counts: number[]) => counts.map((count, i) => ({ count, label: `Day ${i}` }))
    render(
      <InsightResult
        source={{ kind: 'RetentionQuery' }}
        title="Coming back"
        results={[
          { date: '2026-11-27T00:00:00Z', label: 'Day 0', values: values(4, 2, 1) },
          { date: '2026-11-28T00:00:00Z', label: 'Day 1', values: values(0, 0) },
        ]}
      />,
    )
    const table = screen.getByRole('table', { name: 'Coming back' })
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Cohort', 'Day 0', 'Day 1', 'Day 2'])
    expect(cells(table)).toEqual([
      ['2026-11-27', '4', '2 (50%)', '1 (25%)'],
      ['2026-11-28', '0', '0'],
    ])
  })

  it("shows a trend's totals as numbers or as a table, the previous period named as such", () => {
    const trend = (label: string, total: number, compare?: string) => ({ label, aggregated_value: total, data: [], compare_label: compare })
    const results = [trend('order placed', 12, 'current'), trend('order placed', 7, 'previous')]
    const { rerender } = render(
      <InsightResult source={{ kind: 'TrendsQuery', trendsFilter: { display: 'BoldNumber' } }} title="Orders" results={results} />,
    )
    expect(screen.getAllByRole('term').map((t) => t.textContent)).toEqual(['order placed', 'order placed (previous period)'])
    expect(screen.getAllByRole('definition').map((d) => d.textContent)).toEqual(['12', '7'])
    rerender(<InsightResult source={{ kind: 'TrendsQuery', trendsFilter: { display: 'ActionsTable' } }} title="Orders" results={results} />)
    expect(cells(screen.getByRole('table', { name: 'Orders' }))).toEqual([
      ['order placed', '12'],
      ['order placed (previous period)', '7'],
    ])
  })

  it('says so when the range holds no data', () => {
    render(<InsightResult source={{ kind: 'StickinessQuery' }} title="Sticky" results={[]} />)
    expect(screen.getByText('No data in this date range.')).toBeTruthy()
  })

  it('makes each number a button naming whose persons it opens: a funnel step, its drop-off and a total of the previous period', () => {
    const chosen: ChosenPoint[] = []
    const step = (name: string, count: number) => ({ name, custom_name: null, count, order: 0, breakdown_value: ['Chrome'] })
    render(
      <InsightResult
        source={{ kind: 'FunnelsQuery' }}
        title="Checkout"
        results={[[step('signed up', 4), step('order placed', 1)]]}
        onPoint={(c) => chosen.push(c)}
      />,
    )
    const table = screen.getByRole('table', { name: 'Checkout steps: Chrome' })
    expect(cells(table)[1]).toEqual(['2. order placed', '1', '25.0%', '25.0%', '3'])
    fireEvent.click(
      within(table).getByRole('button', { name: '3: the persons of those who dropped off before step 2, order placed, Chrome' }),
    )
    fireEvent.click(within(table).getByRole('button', { name: '4: the persons of step 1, signed up, Chrome' }))
    expect(chosen).toEqual([
      {
        point: { kind: 'FunnelsQuery', step: 2, droppedOff: true, breakdown: ['Chrome'] },
        title: 'dropped off before step 2, order placed, Chrome',
        persons: 3,
      },
      {
        point: { kind: 'FunnelsQuery', step: 1, droppedOff: false, breakdown: ['Chrome'] },
        title: 'step 1, signed up, Chrome',
        persons: 4,
      },
    ])

    cleanup()
    chosen.length = 0
    const results = [{ label: 'order placed', aggregated_value: 7, data: [], compare_label: 'previous', action: { order: 0 } }]
    render(
      <InsightResult
        source={{ kind: 'TrendsQuery', series: [{ event: 'order placed', math: 'dau' }], trendsFilter: { display: 'BoldNumber' } }}
        title="Orders"
        results={results}
        onPoint={(c) => chosen.push(c)}
      />,
    )
    fireEvent.click(screen.getByRole('button', { name: '7: the persons of order placed (previous period)' }))
    expect(chosen).toEqual([
      { point: { kind: 'TrendsQuery', series: 0, previous: true }, title: 'order placed (previous period)', persons: 7 },
    ])
  })

  it('says why a formula’s numbers open no persons, and draws them as plain numbers', () => {
    render(
      <InsightResult
        source={{ kind: 'TrendsQuery', trendsFilter: { display: 'ActionsTable', formula: 'A/B' } }}
        title="Ratio"
        results={[{ label: 'A/B', aggregated_value: 0.5, data: [] }]}
        onPoint={() => undefined}
      />,
    )
    expect(screen.queryAllByRole('button')).toEqual([])
    expect(screen.getByText(/formula/)).toBeTruthy()
  })
})
