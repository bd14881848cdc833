// @vitest-environment happy-dom
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  dayOf,
  isCustom,
  noViews,
  overviewQuery,
  presetOf,
  rangeOf,
  rowsOf,
  tableQuery,
  tabOf,
  tilesOf,
  type WebTab,
} from '../webAnalytics'
import { BreakdownTabs, OverviewTiles, StatsTable } from './WebStats'

afterEach(cleanup)

/** An overview answer as `/query/` gives it (PostHog's WebOverviewItem list). */
const OVERVIEW = {
  results: [
    { key: 'visitors', kind: 'unit', isIncreaseBad: null, value: 1234, previous: 617, changeFromPreviousPct: 100 },
    { key: 'views', kind: 'unit', isIncreaseBad: null, value: 3, previous: 4, changeFromPreviousPct: -25 },
    { key: 'sessions', kind: 'unit', isIncreaseBad: null, value: 2, previous: null, changeFromPreviousPct: null },
    { key: 'session duration', kind: 'duration_s', isIncreaseBad: null, value: 200.4, previous: 45, changeFromPreviousPct: 345 },
    { key: 'bounce rate', kind: 'percentage', isIncreaseBad: true, value: 12.345, previous: 10, changeFromPreviousPct: 23 },
  ],
}

describe("the Web analytics page's queries", () => {
  it('asks the overview for the preset up to now, compared with the period before', () => {
    expect(overviewQuery('-30d')).toEqual({
      kind: 'WebOverviewQuery',
      dateRange: { date_from: '-30d', date_to: null },
      properties: [],
      compareFilter: { compare: true },
    })
    expect(overviewQuery('dStart').dateRange.date_from).toBe('dStart')
  })

  it("asks a tab's table for its breakdown over the same range", () => {
    const tabs: Array<[WebTab, string]> = [
      ['paths', 'Page'],
      ['entry', 'InitialPage'],
      ['referrers', 'InitialReferringDomain'],
      ['utm', 'InitialUTMSource'],
      ['countries', 'Country'],
      ['browsers', 'Browser'],
      ['os', 'OS'],
      ['devices', 'DeviceType'],
    ]
    for (const [tab, breakdownBy] of tabs) {
      expect(tableQuery('-90d', tab)).toEqual({
        kind: 'WebStatsTableQuery',
        dateRange: { date_from: '-90d', date_to: null },
        properties: [],
        breakdownBy,
        // Only the paths table asks for the bounce rate, as PostHog's does.
        ...(tab === 'paths' ? { includeBounceRate: true } : {}),
        limit: 100,
      })
    }
  })

  it('reads a custom range of days from the URL, its last day included, and asks for it', () => {
    expect(rangeOf('2026-11-01', '2026-11-07')).toEqual({ from: '2026-11-01', to: '2026-11-07' })
    expect(isCustom(rangeOf('2026-11-01', undefined))).toBe(true)
    expect(isCustom(rangeOf('-30d', '2026-11-07'))).toBe(false)
    // A last day before the first, or text that is no day, is left out; no range at all is the default.
    expect(rangeOf('2026-11-07', '2026-11-01')).toEqual({ from: '2026-11-07' })
    expect(rangeOf('2026-13-45', undefined)).toEqual({ from: '-7d' })
    expect(dayOf('tomorrow')).toBeUndefined()
    expect(overviewQuery({ from: '2026-11-01', to: '2026-11-07' }).dateRange).toEqual({ date_from: '2026-11-01', date_to: '2026-11-07' })
    expect(tableQuery({ from: '2026-11-01' }, 'os').dateRange).toEqual({ date_from: '2026-11-01', date_to: null })
  })

  it('filters by an event property equal to a value, both queries alike', () => {
    const filter = { property: '$pathname', value: '/docs' }
    const properties = [{ key: '$pathname', value: '/docs', operator: 'exact', type: 'event' }]
    expect(overviewQuery('-7d', filter).properties).toEqual(properties)
    expect(tableQuery('-7d', 'paths', filter).properties).toEqual(properties)
    expect(overviewQuery('-7d', { value: '/docs' }).properties).toEqual([])
  })

  it('keeps only known presets and tabs from the URL', () => {
    expect(presetOf('-7d')).toBe('-7d')
    expect(presetOf('-8d')).toBeUndefined()
    expect(tabOf('os')).toBe('os')
    expect(tabOf('sql')).toBeUndefined()
  })
})

describe("the Web analytics page's answers", () => {
  it('reads the overview as labelled numbers in their kind’s words', () => {
    expect(tilesOf(OVERVIEW).map((t) => [t.label, t.value, t.previous, t.change])).toEqual([
      ['Visitors', '1,234', '617', 100],
      ['Page views', '3', '4', -25],
      ['Sessions', '2', '—', null],
      ['Session duration', '3m 20s', '45s', 345],
      ['Bounce rate', '12.3%', '10%', 23],
    ])
    expect(noViews(OVERVIEW)).toBe(false)
    expect(noViews({ results: [{ key: 'views', kind: 'unit', value: 0 }] })).toBe(true)
  })

  it("reads a table's rows as value, visitors and views, naming a missing value", () => {
    const answer = {
      results: [
        ['/pricing', [2, null], [5, null], 2 / 3, ''],
        [null, [1, null], [1, null], 1 / 3, ''],
      ],
    }
    expect(rowsOf(answer)).toEqual([
      { value: '/pricing', visitors: 2, views: 5 },
      { value: '(none)', visitors: 1, views: 1 },
    ])
    expect(rowsOf({ results: [] })).toEqual([])
  })

  it("reads the paths table's bounce rate, and shows it in percent, none as a dash", () => {
    const rows = rowsOf({
      results: [
        ['/pricing', [2, null], [5, null], [0.5, null]],
        ['/docs', [1, null], [1, null], [null, null]],
      ],
    })
    expect(rows).toEqual([
      { value: '/pricing', visitors: 2, views: 5, bounceRate: 0.5 },
      { value: '/docs', visitors: 1, views: 1, bounceRate: null },
    ])
    render(<StatsTable tab="paths" rows={rows} />)
    const table = screen.getByRole('table', { name: 'Paths' })
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((c) => c.textContent),
    ).toEqual(['Path', 'Visitors', 'Views', 'Bounce rate'])
    expect(
      within(table)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['2', '5', '50%', '1', '1', '—'])
  })

  it('shows each number with its previous period, a rise in bounce rate as bad news', () => {
    render(<OverviewTiles tiles={tilesOf(OVERVIEW)} />)
    const visitors = screen.getByText('Visitors').parentElement!
    expect(within(visitors).getByText('1,234')).toBeTruthy()
    expect(within(visitors).getByText('+100%').className).toBe('change-good')
    expect(within(screen.getByText('Page views').parentElement!).getByText('-25%').className).toBe('change-bad')
    expect(within(screen.getByText('Bounce rate').parentElement!).getByText('+23%').className).toBe('change-bad')
  })

  it('draws a table named after its tab, a row per value', () => {
    render(<StatsTable tab="referrers" rows={[{ value: 'news.ycombinator.com', visitors: 1200, views: 3400 }]} />)
    const table = screen.getByRole('table', { name: 'Referring domains' })
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((c) => c.textContent),
    ).toEqual(['Referring domain', 'Visitors', 'Views'])
    expect(within(table).getByRole('rowheader').textContent).toBe('news.ycombinator.com')
    expect(
      within(table)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['1,200', '3,400'])
  })
})

describe("the Web analytics page's tabs", () => {
  it('is one tab stop whose arrow keys choose the next or previous tab', async () => {
    const onChoose = vi.fn<(tab: WebTab) => void>()
    render(<BreakdownTabs tab="paths" onChoose={onChoose} />)
    const user = userEvent.setup()
    const selected = screen.getByRole('tab', { selected: true })
    expect(selected.textContent).toBe('Paths')
    expect(screen.getAllByRole('tab').filter((t) => t.tabIndex === 0)).toEqual([selected])
    await user.tab()
    expect(document.activeElement).toBe(selected)
    await user.keyboard('{ArrowRight}')
    expect(onChoose).toHaveBeenLastCalledWith('entry')
    expect(document.activeElement?.textContent).toBe('Entry paths')
    await user.keyboard('{ArrowLeft}{ArrowLeft}')
    expect(onChoose).toHaveBeenLastCalledWith('devices')
    await user.keyboard('{Home}')
    expect(onChoose).toHaveBeenLastCalledWith('paths')
    await user.click(screen.getByRole('tab', { name: 'Countries' }))
    expect(onChoose).toHaveBeenLastCalledWith('countries')
  })
})
