import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { waitFor, type TestAccount } from '@burrow/testing'
import type { BrowserContext, Page } from 'playwright-core'
import { PostHog } from 'posthog-node'
import { beforeAll, describe, expect, it } from 'vitest'
import { tableRows, useConsoleBrowser } from './consoleBrowser'
import { freshAnswerOf } from './queryFixture'
import type { TestService } from './service'

/**
 * The Web analytics page in Debian's Chromium against the real service: with no page view it says
 * how to send them; after three visitors' page views its overview and paths table show what
 * `/query/` answers for the same queries, and the chosen tab and date range stay in the URL; the page
 * views posthog-js sends from a site of another origin are counted there too.
 */
let service: TestService
let account: TestAccount
let page: Page
let checkPage: (name: string) => Promise<void>
let checkDarkAndNarrow: (name: string) => Promise<void>
let projectUrl: (page: string) => string
let signIn: () => Promise<void>
let context: BrowserContext
useConsoleBrowser((h) => {
  ;({ service, account, page, checkPage, projectUrl, signIn, context, checkDarkAndNarrow } = h)
})

const postQuery = (query: unknown) => freshAnswerOf(service, account, query)

/** A table's body rows as text: the row's heading, then its cells. */
const rowsOf = (name: string) => tableRows(page, name)

/** The number an overview tile shows, by its label. */
const tileValue = (label: string) =>
  page
    .locator('.web-tile')
    .filter({ has: page.getByText(label, { exact: true }) })
    .locator('.web-value')
    .textContent()

const MINUTE = 60_000

/** Three visitors' sessions: the pages each saw, in order, and where they came from. */
const VISITS = [
  { person: 'ada', referrer: 'www.google.com', paths: ['/', '/pricing'] },
  { person: 'bob', referrer: 'news.ycombinator.com', paths: ['/', '/docs', '/pricing'] },
  { person: 'cy', referrer: '$direct', paths: ['/'] },
] as const

const overview = {
  kind: 'WebOverviewQuery',
  dateRange: { date_from: '-7d', date_to: null },
  properties: [],
  compareFilter: { compare: true },
}
const paths = {
  kind: 'WebStatsTableQuery',
  dateRange: { date_from: '-7d', date_to: null },
  properties: [],
  breakdownBy: 'Page',
  includeBounceRate: true,
  limit: 100,
}

beforeAll(async () => {
  await signIn()
}, 60_000)

describe('web analytics in the console', () => {
  it('says how to send page views when there are none, linking to Settings', async () => {
    await page.goto(projectUrl('web'))
    await page.getByRole('heading', { name: 'Web analytics', level: 1 }).waitFor()
    await page.getByText(/No page views yet/).waitFor()
    await page.getByRole('link', { name: 'Settings' }).last().waitFor()
    await checkPage('web-analytics-empty')
  }, 30_000)

  it('shows the visitors, page views and paths /query/ counts, and keeps the tab in the URL', async () => {
    const client = new PostHog(account.projectToken, { host: service.baseUrl, flushAt: 1, flushInterval: 0 })
    const start = Date.now() - 30 * MINUTE
    let sent = 0
    for (const [v, visit] of VISITS.entries()) {
      for (const [i, path] of visit.paths.entries()) {
        client.capture({
          distinctId: visit.person,
          event: '$pageview',
          timestamp: new Date(start + v * 5 * MINUTE + i * MINUTE),
          properties: {
            $current_url: `https://shop.example.com${path}`,
            $pathname: path,
            $session_id: `session-${visit.person}`,
            $referring_domain: visit.referrer,
          },
        })
        sent += 1
      }
    }
    await client.shutdown()
    await waitFor(
      async () => {
        const res = await service.api(account, `/api/projects/${account.projectId}/events/?limit=100`)
        return res.ok && ((await res.json()) as { results: unknown[] }).results.length === sent ? true : undefined
      },
      { what: 'the page views stored', timeoutMs: 45_000, intervalMs: 250 },
    )

    const tiles = Object.fromEntries(((await postQuery(overview)).results as { key: string; value: number }[]).map((t) => [t.key, t.value]))
    expect(tiles).toMatchObject({ visitors: 3, views: 6, sessions: 3 })
    const table = (await postQuery(paths)).results as [string, [number, unknown], [number, unknown], [number | null, unknown]][]
    expect(table.map((row) => row[0]).sort()).toEqual(['/', '/docs', '/pricing'])

    await page.goto(projectUrl('web'))
    await page.locator('.web-tile').first().waitFor()
    expect(await tileValue('Visitors')).toBe(String(tiles.visitors))
    expect(await tileValue('Page views')).toBe(String(tiles.views))
    expect(await tileValue('Sessions')).toBe(String(tiles.sessions))
    await page.getByRole('table', { name: 'Paths', exact: true }).waitFor()
    // The bounce rate of the sessions entering on a path, in percent (a path nobody entered on has none).
    const percent = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 1000) / 10}%`)
    expect(await rowsOf('Paths')).toEqual(
      table.map(([path, [visitors], [views], [bounce]]) => [path, String(visitors), String(views), percent(bounce)]),
    )
    // Of the three sessions, cy's saw one page and entered on `/`, the others saw more: a third bounced there.
    expect(table.find(([path]) => path === '/')?.[3][0]).toBeCloseTo(1 / 3, 6)
    await checkPage('web-analytics')

    // A tab chosen from the keyboard is the URL's, and the URL alone opens it again.
    await page.getByRole('tab', { name: 'Paths', exact: true }).focus()
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('ArrowRight')
    await page.waitForURL(/tab=referrers/)
    await page.getByRole('table', { name: 'Referring domains', exact: true }).waitFor()
    const referrers = await rowsOf('Referring domains')
    expect(referrers.map((row) => row[0]).sort()).toEqual(['$direct', 'news.ycombinator.com', 'www.google.com'])
    await page.getByLabel('Date range').selectOption({ label: 'Last 30 days' })
    await page.waitForURL(/date_from=-30d/)
    expect(new URL(page.url()).searchParams.get('tab')).toBe('referrers')
    await page.reload()
    expect(await page.getByRole('tab', { selected: true }).textContent()).toBe('Referring domains')
    expect(await page.getByLabel('Date range').inputValue()).toBe('-30d')
    await page.getByRole('table', { name: 'Referring domains', exact: true }).waitFor()
    await checkPage('web-analytics-referrers')

    // Its colours hold in the dark theme and its content in a narrow window.
    await checkDarkAndNarrow('web-analytics-dark-narrow')
    await page.emulateMedia({ colorScheme: 'light' })
  }, 90_000)

  it('shows a custom range of days, kept in the URL, as /query/ counts it', async () => {
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10)
    await page.goto(projectUrl('web'))
    await page.locator('.web-tile').first().waitFor()
    await page.getByLabel('Date range').selectOption({ label: 'Custom range' })
    await page.waitForURL(/date_from=\d{4}-\d{2}-\d{2}/)
    await page.getByLabel('From', { exact: true }).fill(day(2))
    await page.waitForURL(new RegExp(`date_from=${day(2)}`))
    await page.getByLabel('To', { exact: true }).fill(day(0))
    await page.waitForURL(new RegExp(`date_to=${day(0)}`))
    const custom = { ...overview, dateRange: { date_from: day(2), date_to: day(0) } }
    const tiles = (await postQuery(custom)).results as { key: string; value: number }[]
    const views = tiles.find((t) => t.key === 'views')!.value
    expect(views).toBeGreaterThan(0)
    await expect.poll(() => tileValue('Page views')).toBe(String(views))
    // The link alone opens the same range.
    await page.reload()
    expect(await page.getByLabel('From', { exact: true }).inputValue()).toBe(day(2))
    expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe(day(0))
    await checkPage('web-analytics-custom-range')
  }, 60_000)

  it('filters the numbers and tables by an event property, kept in the URL, as /query/ filters them', async () => {
    await page.goto(projectUrl('web'))
    await page.locator('.web-tile').first().waitFor()
    const form = page.getByRole('form', { name: 'Property filter' })
    await form.getByLabel('Event property').fill('$pathname')
    await form.getByLabel('equals').fill('/docs')
    await form.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL(/value=%2Fdocs|value=\/docs/)
    const properties = [{ key: '$pathname', value: '/docs', operator: 'exact', type: 'event' }]
    const tiles = (await postQuery({ ...overview, properties })).results as { key: string; value: number }[]
    expect(tiles.find((t) => t.key === 'views')!.value).toBe(1)
    await expect.poll(() => tileValue('Page views')).toBe('1')
    await expect.poll(async () => (await rowsOf('Paths')).map((row) => row[0])).toEqual(['/docs'])
    await checkPage('web-analytics-filtered')
    await form.getByRole('button', { name: 'Clear filter' }).click()
    await page.waitForURL((url) => !url.searchParams.has('property'))
  }, 60_000)

  it('counts the page views posthog-js sends from a site of another origin', async () => {
    // The customer's site: a page per path that loads posthog-js from the service, as PostHog's snippet does.
    const site = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><head><title>shop</title>
<script src="${service.baseUrl}/static/array.js"></script></head><body><script>
  posthog.init(${JSON.stringify(account.projectToken)}, {
    api_host: ${JSON.stringify(service.baseUrl)}, opt_out_useragent_filter: true, autocapture: false,
    disable_session_recording: true, persistence: 'localStorage', request_batching: false,
  })
</script></body></html>`)
    })
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
    try {
      // localhost against the service's 127.0.0.1: another origin.
      const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`
      const before = (await postQuery(overview)).results as { key: string; value: number }[]
      const viewsBefore = before.find((t) => t.key === 'views')!.value
      const visitor = await context.browser()!.newContext()
      try {
        const tab = await visitor.newPage()
        for (const path of ['/from-the-site', '/from-the-site/checkout']) {
          const sent = tab.waitForRequest((r) => r.url().startsWith(service.baseUrl) && r.method() === 'POST')
          await tab.goto(`${siteUrl}${path}`)
          await sent
        }
      } finally {
        await visitor.close()
      }
      await waitFor(
        async () => {
          const tiles = (await postQuery(overview)).results as { key: string; value: number }[]
          return tiles.find((t) => t.key === 'views')!.value === viewsBefore + 2 ? true : undefined
        },
        { what: "the site's page views counted", timeoutMs: 45_000, intervalMs: 250 },
      )
      // The page reads answers cached for a while, as PostHog's does: the paths table's is computed afresh first.
      await postQuery(paths)
      await page.goto(projectUrl('web'))
      await page.getByRole('table', { name: 'Paths', exact: true }).waitFor()
      expect(await tileValue('Page views')).toBe(String(viewsBefore + 2))
      const shown = await rowsOf('Paths')
      expect(shown.find((row) => row[0] === '/from-the-site')?.slice(1, 3)).toEqual(['1', '1'])
      expect(shown.find((row) => row[0] === '/from-the-site/checkout')?.slice(1, 3)).toEqual(['1', '1'])
    } finally {
      await new Promise((resolve) => site.close(resolve))
    }
  }, 90_000)
})
