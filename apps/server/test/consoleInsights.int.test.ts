import { waitFor, type TestAccount } from '@burrow/testing'
import type { Page } from 'playwright-core'
import { PostHog } from 'posthog-node'
import { beforeAll, describe, expect, it } from 'vitest'
import { queryInUrlOf, tableRows, useConsoleBrowser } from './consoleBrowser'
import { freshAnswerOf } from './queryFixture'
import type { TestService } from './service'

/**
 * Insights and dashboards in Debian's Chromium against the real service: a trend and a funnel
 * built in the builder show the numbers `/query/` answers for the same query (read through the
 * chart's table), a trend saved as an insight goes onto a new dashboard, which draws it.
 */
let service: TestService
let account: TestAccount
let page: Page
let checkPage: (name: string) => Promise<void>
let projectUrl: (page: string) => string
let signIn: () => Promise<void>
useConsoleBrowser((h) => {
  ;({ service, account, page, checkPage, projectUrl, signIn } = h)
})

const postQuery = (query: unknown) => freshAnswerOf(service, account, query)

/** The builder's query, as the page's URL keeps it. */
const queryInUrl = () => queryInUrlOf(page)

/** A table's body rows as text: the row's heading, then its cells. */
const rowsOf = (name: string) => tableRows(page, name)

const HOUR = 3_600_000

beforeAll(async () => {
  await signIn()
  // Three people sign up, two of them order an hour later (one twice).
  const client = new PostHog(account.projectToken, { host: service.baseUrl, flushAt: 1, flushInterval: 0 })
  const now = Date.now()
  for (const person of ['ada', 'bob', 'cy']) {
    client.capture({ distinctId: person, event: 'signed up', timestamp: new Date(now - 3 * HOUR), properties: { plan: 'free' } })
  }
  for (const [person, offset] of [
    ['ada', 2 * HOUR],
    ['bob', 2 * HOUR],
    ['bob', HOUR],
  ] as const) {
    client.capture({ distinctId: person, event: 'order placed', timestamp: new Date(now - offset), properties: { total: 30, plan: 'pro' } })
  }
  await client.shutdown()
  await waitFor(
    async () => {
      const res = await service.api(account, `/api/projects/${account.projectId}/events/?limit=100`)
      return res.ok && ((await res.json()) as { results: unknown[] }).results.length === 6 ? true : undefined
    },
    { what: 'the six events stored', timeoutMs: 45_000, intervalMs: 250 },
  )
}, 90_000)

describe('insights and dashboards in the console', () => {
  it('lists no saved insight yet and offers a new one', async () => {
    await page.goto(projectUrl('insights'))
    await page.getByRole('heading', { name: 'Insights', level: 1 }).waitFor()
    await page.getByText('No saved insights yet').waitFor()
    await checkPage('insights-empty')
  }, 30_000)

  it('builds a trend whose table shows what /query/ answers for the query in its URL', async () => {
    await page.goto(projectUrl('insights'))
    await page.getByRole('link', { name: 'New insight' }).click()
    await page.getByRole('heading', { name: 'New insight', level: 1 }).waitFor()
    await page.getByLabel('Series 1 event').fill('order placed')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/order%20placed|order\+placed/)
    await page.getByRole('img', { name: /line chart/ }).waitFor()
    await checkPage('insight-trend')

    await page.getByRole('button', { name: 'Show as table' }).click()
    const query = queryInUrl()
    expect(query).toMatchObject({
      kind: 'TrendsQuery',
      series: [{ event: 'order placed' }],
      dateRange: { date_from: '-7d' },
      interval: 'day',
    })
    const [series] = (await postQuery(query)).results as { labels: string[]; data: number[] }[]
    expect(series!.data.reduce((a, b) => a + b, 0)).toBe(3)
    expect(await rowsOf('New insight')).toEqual(series!.labels.map((label, i) => [label, String(series!.data[i])]))
    await checkPage('insight-trend-table')

    // Unique users, as a number: two people ordered.
    await page.getByLabel('Series 1 counts').selectOption('dau')
    await page.getByLabel('Display').selectOption('BoldNumber')
    await page.waitForURL(/BoldNumber/)
    const dau = (await postQuery(queryInUrl())).results as { aggregated_value: number }[]
    expect(dau[0]!.aggregated_value).toBe(2)
    await page.getByRole('definition').filter({ hasText: /^2$/ }).waitFor()

    // The URL alone draws the same chart.
    const url = page.url()
    await page.goto('about:blank')
    await page.goto(url)
    await page.getByRole('definition').filter({ hasText: /^2$/ }).waitFor()
    expect(await page.getByLabel('Series 1 counts').inputValue()).toBe('dau')

    // As a pie, the same total: one whole slice, named with its share, and the number in the table.
    await page.getByLabel('Display').selectOption('ActionsPie')
    await page.waitForURL(/ActionsPie/)
    await page.getByRole('img', { name: 'New insight: order placed 100.0%' }).waitFor()
    expect(await rowsOf('New insight')).toEqual([['order placed', '2']])
    await checkPage('insight-pie')
  }, 60_000)

  it('builds a funnel whose steps show the persons /query/ counts', async () => {
    await page.goto(projectUrl('insights/new'))
    await page.getByRole('button', { name: 'Funnels' }).click()
    await page.getByLabel('Step 1 event').fill('signed up')
    await page.getByLabel('Step 2 event').fill('order placed')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/FunnelsQuery.*signed/)
    const steps = (await postQuery(queryInUrl())).results as { name: string; count: number }[]
    expect(steps.map((s) => s.count)).toEqual([3, 2])
    await page.getByRole('table', { name: 'New insight steps' }).waitFor()
    expect(await rowsOf('New insight steps')).toEqual([
      ['1. signed up', '3', '100.0%', '—', '—'],
      ['2. order placed', '2', '66.7%', '66.7%', '1'],
    ])
    await checkPage('insight-funnel')
    // Its colours hold in the dark theme too.
    await page.emulateMedia({ colorScheme: 'dark' })
    await checkPage('insight-funnel-dark')
    await page.emulateMedia({ colorScheme: 'light' })
  }, 60_000)

  it('draws retention as its cohort table, and lifecycle and stickiness as bars, each as /query/ answers', async () => {
    await page.goto(projectUrl('insights/new'))
    await page.getByRole('button', { name: 'Retention' }).click()
    await page.getByLabel('Start event').fill('signed up')
    await page.getByLabel('Return event').fill('order placed')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/RetentionQuery.*signed/)
    const cohorts = (await postQuery(queryInUrl())).results as { date: string; values: { count: number }[] }[]
    await page.getByRole('table', { name: 'New insight' }).waitFor()
    const table = await rowsOf('New insight')
    expect(table.map((row) => [row[0], row[1]])).toEqual(cohorts.map((c) => [c.date.slice(0, 10), String(c.values[0]!.count)]))
    expect(cohorts.reduce((sum, c) => sum + c.values[0]!.count, 0)).toBe(3)
    await checkPage('insight-retention')

    for (const kind of ['Lifecycle', 'Stickiness']) {
      await page.getByRole('button', { name: kind }).click()
      await page.getByLabel('Series 1 event').fill('order placed')
      await page.getByRole('button', { name: 'Apply' }).click()
      await page.waitForURL(new RegExp(`${kind}Query.*order`))
      await page.getByRole('img', { name: /bar chart/ }).waitFor()
      await checkPage(`insight-${kind.toLowerCase()}-chart`)
      await page.getByRole('button', { name: 'Show as table' }).click()
      const answered = (await postQuery(queryInUrl())).results as { data: number[] }[]
      const rows = await rowsOf('New insight')
      expect(rows.map((row) => row.slice(1).map(Number))).toEqual(answered[0]!.data.map((_, i) => answered.map((s) => s.data[i])))
      await checkPage(`insight-${kind.toLowerCase()}`)
    }
  }, 60_000)

  it('saves a trend as an insight, adds it to a new dashboard, and the dashboard draws it', async () => {
    await page.goto(projectUrl('insights/new'))
    await page.getByLabel('Series 1 event').fill('signed up')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/signed/)
    await page.getByLabel('Insight name').fill('Sign-ups')
    await page.getByRole('button', { name: 'Save as insight' }).click()
    await page.getByRole('heading', { name: 'Sign-ups', level: 1 }).waitFor()
    expect(new URL(page.url()).pathname).toMatch(new RegExp(`/project/${account.projectId}/insights/[A-Za-z0-9]+$`))
    await checkPage('insight-saved')

    await page.goto(projectUrl('insights'))
    await page.getByRole('link', { name: 'Sign-ups' }).waitFor()
    await checkPage('insights')

    await page.goto(projectUrl('dashboards'))
    await page.getByRole('heading', { name: 'Dashboards', level: 1 }).waitFor()
    await page.getByText('No dashboards yet').waitFor()
    await checkPage('dashboards-empty')
    await page.getByLabel('Dashboard name').fill('Growth')
    await page.getByRole('button', { name: 'Create dashboard' }).click()
    await page.getByRole('heading', { name: 'Growth', level: 1 }).waitFor()
    await page.getByText('This dashboard has no tiles yet').waitFor()

    await page.goto(projectUrl('insights'))
    await page.getByRole('link', { name: 'Sign-ups' }).click()
    await page.getByRole('heading', { name: 'Sign-ups', level: 1 }).waitFor()
    // A change saved on the insight's page is what its link shows afterwards.
    await page.getByLabel('Display').selectOption('ActionsBar')
    await page.waitForURL(/ActionsBar/)
    await page.getByRole('button', { name: 'Save changes' }).click()
    await page.getByRole('button', { name: 'Save changes' }).and(page.locator(':disabled')).waitFor()
    await page.goto(page.url().split('?')[0]!)
    await page.getByRole('img', { name: /bar chart/ }).waitFor()
    await page.getByRole('combobox', { name: /^Dashboard/ }).selectOption({ label: 'Growth' })
    await page.getByRole('button', { name: 'Add to dashboard' }).click()
    await page.getByRole('link', { name: 'Growth' }).waitFor()
    // Or onto a dashboard made there and then.
    await page.getByRole('combobox', { name: /^Dashboard/ }).selectOption({ label: 'A new dashboard…' })
    await page.getByLabel('New dashboard name').fill('Weekly review')
    await page.getByRole('button', { name: 'Add to dashboard' }).click()
    await page.getByRole('link', { name: 'Weekly review' }).waitFor()
    await checkPage('insight-on-dashboards')
    await page.getByRole('link', { name: 'Growth' }).click()

    await page.getByRole('heading', { name: 'Growth', level: 1 }).waitFor()
    const tile = page.getByRole('article', { name: 'Sign-ups' })
    await tile.getByRole('img', { name: /bar chart/ }).waitFor()
    await tile.getByRole('button', { name: 'Show as table' }).click()
    const rows = await rowsOf('Sign-ups')
    expect(rows.reduce((sum, row) => sum + Number(row[1]), 0)).toBe(3)

    // The dashboard's date range applies to its tiles, from its URL.
    await page.getByLabel('Date range').selectOption('-30d')
    await page.waitForURL(/date_from=-30d/)
    await tile.getByRole('img', { name: /bar chart/ }).waitFor()
    await tile.getByRole('button', { name: 'Show as table' }).click()
    const month = (
      await postQuery({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signed up' }], dateRange: { date_from: '-30d' } })
    ).results as { labels: string[]; data: number[] }[]
    expect(await rowsOf('Sign-ups')).toEqual(month[0]!.labels.map((label, i) => [label, String(month[0]!.data[i])]))

    // A property filter applies to every tile too, with the date range, from the URL: no sign-up was on the pro plan.
    const filterForm = page.getByRole('form', { name: 'Property filter' })
    await filterForm.getByLabel('Event property').fill('plan')
    await filterForm.getByLabel('equals').fill('pro')
    await filterForm.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL(/property=plan.*value=pro|value=pro.*property=plan/)
    expect(new URL(page.url()).searchParams.get('date_from')).toBe('-30d')
    const pro = (
      await postQuery({
        kind: 'TrendsQuery',
        series: [{ kind: 'EventsNode', event: 'signed up' }],
        dateRange: { date_from: '-30d' },
        properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }],
      })
    ).results as { data: number[] }[]
    expect(pro[0]!.data.reduce((a, b) => a + b, 0)).toBe(0)
    await tile.getByRole('img', { name: /bar chart/ }).waitFor()
    await tile.getByRole('button', { name: 'Show as table' }).click()
    await expect.poll(async () => (await rowsOf('Sign-ups')).reduce((sum, row) => sum + Number(row[1]), 0)).toBe(0)
    await checkPage('dashboard-filtered')
    await filterForm.getByRole('button', { name: 'Clear filter' }).click()
    await page.waitForURL((url) => !url.searchParams.has('property'))
    // The unfiltered answer is still at hand: the tile shows it at once, as the table it was showing.
    await expect.poll(async () => (await rowsOf('Sign-ups')).reduce((sum, row) => sum + Number(row[1]), 0)).toBe(3)

    await page.getByRole('textbox', { name: 'Text card' }).fill('Sign-ups count everyone who finished the form.')
    await page.getByRole('button', { name: 'Add text card' }).click()
    await page.getByRole('article', { name: 'Text card' }).getByText('finished the form').waitFor()
    await checkPage('dashboard')

    // The text card moved before the insight stays there: the arrangement is the dashboard's.
    const order = () =>
      page.getByRole('article').evaluateAll((tiles) => tiles.map((t) => t.getAttribute('aria-label') ?? t.textContent?.slice(0, 8)))
    expect(await order()).toEqual(['Sign-ups', 'Text card'].map((n) => (n === 'Text card' ? n : expect.stringContaining(n))))
    await page.getByRole('button', { name: 'Move text card earlier' }).click()
    await waitFor(async () => ((await order())[0] === 'Text card' ? true : undefined), { what: 'the text card first' })
    await page.reload()
    await page.getByRole('article', { name: 'Sign-ups' }).waitFor()
    expect((await order())[0]).toBe('Text card')

    // Deleting the dashboard leaves the insight; deleting the insight leaves the list empty.
    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: 'Delete dashboard' }).click()
    await page.getByRole('heading', { name: 'Dashboards', level: 1 }).waitFor()
    await page.getByRole('link', { name: 'Weekly review' }).waitFor()
    expect(await page.getByRole('link', { name: 'Growth' }).count()).toBe(0)
    await page.goto(projectUrl('insights'))
    await page.getByRole('link', { name: 'Sign-ups' }).click()
    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: 'Delete insight' }).click()
    await page.getByText('No saved insights yet').waitFor()
  }, 90_000)

  it('breaks a smoothed trend down by two properties, saved, its legend and table naming each pair of values', async () => {
    // Reports viewed in two browsers on two plans, sent through /batch/, over the last days.
    const client = new PostHog(account.projectToken, { host: service.baseUrl, flushAt: 1, flushInterval: 0 })
    const now = Date.now()
    const views: [string, string, string, number][] = [
      ...Array.from({ length: 15 }, (_, i) => ['ada', 'Safari', 'pro', 1 + 4 * i] as [string, string, string, number]),
      ['bob', 'Chrome', 'free', 2],
      ['cy', 'Safari', 'free', 26],
    ]
    for (const [person, browser, plan, hoursAgo] of views) {
      client.capture({
        distinctId: person,
        event: 'report viewed',
        timestamp: new Date(now - hoursAgo * HOUR),
        properties: { $browser: browser, plan },
      })
    }
    await client.shutdown()
    const byBrowserAndPlan = {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'report viewed' }],
      dateRange: { date_from: '-7d' },
      breakdownFilter: { breakdowns: [{ property: '$browser' }, { property: 'plan' }] },
    }
    await waitFor(
      async () => {
        const rows = (await postQuery(byBrowserAndPlan)).results as { data: number[] }[]
        return rows.flatMap((r) => r.data).reduce((a, b) => a + b, 0) === views.length ? true : undefined
      },
      { what: 'the report views stored', timeoutMs: 45_000, intervalMs: 250 },
    )

    await page.goto(projectUrl('insights/new'))
    await page.getByLabel('Series 1 event').fill('report viewed')
    await page.getByLabel('Breakdown 1 property').fill('$browser')
    await page.getByRole('button', { name: 'Add breakdown' }).click()
    await page.getByLabel('Breakdown 2 property').fill('plan')
    await page.getByLabel('Smoothing').selectOption('7')
    await page.waitForURL(/smoothingIntervals/)
    expect(queryInUrl()).toMatchObject({
      series: [{ event: 'report viewed' }],
      trendsFilter: { smoothingIntervals: 7 },
      breakdownFilter: {
        breakdowns: [
          { property: '$browser', type: 'event' },
          { property: 'plan', type: 'event' },
        ],
      },
    })
    await page.getByRole('img', { name: /line chart/ }).waitFor()
    await checkPage('insight-breakdowns')
    await page.getByLabel('Insight name').fill('Reports by browser and plan')
    await page.getByRole('button', { name: 'Save as insight' }).click()
    await page.getByRole('heading', { name: 'Reports by browser and plan', level: 1 }).waitFor()

    // Opened again, from its link alone: the same breakdowns and smoothing, and the labels /query/ answers.
    await page.goto(page.url().split('?')[0]!)
    await page.getByRole('img', { name: /line chart/ }).waitFor()
    expect(await page.getByLabel('Breakdown 1 property').inputValue()).toBe('$browser')
    expect(await page.getByLabel('Breakdown 2 property').inputValue()).toBe('plan')
    expect(await page.getByLabel('Smoothing').inputValue()).toBe('7')
    const saved = (
      await postQuery({ ...byBrowserAndPlan, interval: 'day', trendsFilter: { display: 'ActionsLineGraph', smoothingIntervals: 7 } })
    ).results as { label: string; labels: string[]; data: number[] }[]
    expect(saved.map((r) => r.label).sort()).toEqual(['Chrome::free', 'Safari::free', 'Safari::pro'])
    const legend = await page.locator('.legend li').allTextContents()
    expect(legend.map((l) => l.trim())).toEqual(saved.map((r) => r.label))
    await page.getByRole('button', { name: 'Show as table' }).click()
    const title = 'Reports by browser and plan'
    const heads = await page.getByRole('table', { name: title, exact: true }).locator('thead th').allTextContents()
    expect(heads).toEqual(['Date', ...saved.map((r) => r.label)])
    expect(await rowsOf(title)).toEqual(saved[0]!.labels.map((label, i) => [label, ...saved.map((r) => String(r.data[i]))]))
    // Smoothed: each day the floor of the week's average up to it, not the day's own count.
    const raw = (await postQuery({ ...byBrowserAndPlan, interval: 'day' })).results as { label: string; data: number[] }[]
    const safariPro = (rows: { label: string; data: number[] }[]) => rows.find((r) => r.label === 'Safari::pro')!.data
    expect(safariPro(raw).reduce((a, b) => a + b, 0)).toBe(15)
    expect(safariPro(saved)).not.toEqual(safariPro(raw))
    await checkPage('insight-breakdowns-table')

    // One breakdown takes bins of its numeric values, and a URL one its normalizing.
    await page.getByRole('button', { name: 'Remove breakdown 2' }).click()
    await page.getByLabel('Bin numeric values').check()
    await page.waitForURL(/breakdown_histogram_bin_count/)
    expect(queryInUrl().breakdownFilter).toEqual({ breakdown_type: 'event', breakdown: '$browser', breakdown_histogram_bin_count: 10 })
    await page.getByLabel('Breakdown 1 property').fill('$current_url')
    await page.getByLabel(/Normalize URLs/).check()
    await page.waitForURL(/breakdown_normalize_url/)
    expect(queryInUrl().breakdownFilter).toMatchObject({ breakdown: '$current_url', breakdown_normalize_url: true })
    await checkPage('insight-breakdown-options')
  }, 90_000)
})
