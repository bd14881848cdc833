import { waitFor, type TestAccount } from '@burrow/testing'
import type { Page } from 'playwright-core'
import { PostHog } from 'posthog-node'
import { beforeAll, describe, expect, it } from 'vitest'
import { queryInUrlOf, tableRows, useConsoleBrowser } from './consoleBrowser'
import { freshAnswerOf } from './queryFixture'
import type { TestService } from './service'

/**
 * Paths insights in Debian's Chromium against the real service: three persons' page views, built
 * into a paths insight whose chart reads out its links and whose table lists what `/query/`
 * answers for the query in the URL; saved, it draws the same on a dashboard.
 */
let service: TestService
let account: TestAccount
let page: Page
let checkPage: (name: string) => Promise<void>
let checkDarkAndNarrow: (name: string) => Promise<void>
let projectUrl: (page: string) => string
let signIn: () => Promise<void>
useConsoleBrowser((h) => {
  ;({ service, account, page, checkPage, checkDarkAndNarrow, projectUrl, signIn } = h)
})

const SITE = 'https://shop.test'
const MINUTE = 60_000

/** The builder's query, as the page's URL keeps it. */
const queryInUrl = () => queryInUrlOf(page)

/** A table's body rows as text: the row's heading, then its cells. */
const rowsOf = (name: string) => tableRows(page, name)

interface Link {
  source: string
  target: string
  value: number
}
/** `2_https://shop.test/pricing` as the table names it: `2. https://shop.test/pricing`. */
const named = (item: string) => item.replace(/^(\d+)_/, '$1. ')

/** The table's first three columns as `/query/` answers the query in the URL: most persons first, then in the answer's order. */
async function answeredRows(): Promise<string[][]> {
  const links = (await freshAnswerOf(service, account, queryInUrl())).results as Link[]
  return [...links].sort((a, b) => b.value - a.value).map((l) => [named(l.source), named(l.target), String(l.value)])
}

beforeAll(async () => {
  await signIn()
  // Ada and Bob go from the home page to pricing (Ada on to sign up), Cy to the docs.
  const client = new PostHog(account.projectToken, { host: service.baseUrl, flushAt: 1, flushInterval: 0 })
  const start = Date.now() - 3 * 60 * MINUTE
  const visits: Array<[person: string, page: string, after: number]> = [
    ['ada', '/home', 0],
    ['ada', '/pricing', 2 * MINUTE],
    ['ada', '/signup', 5 * MINUTE],
    ['bob', '/home', 0],
    ['bob', '/pricing', 2 * MINUTE],
    ['cy', '/home', 0],
    ['cy', '/docs', MINUTE / 2],
  ]
  for (const [distinctId, path, after] of visits) {
    client.capture({ distinctId, event: '$pageview', timestamp: new Date(start + after), properties: { $current_url: `${SITE}${path}` } })
  }
  await client.shutdown()
  await waitFor(
    async () => {
      const res = await service.api(account, `/api/projects/${account.projectId}/events/?limit=100`)
      return res.ok && ((await res.json()) as { results: unknown[] }).results.length === visits.length ? true : undefined
    },
    { what: 'the seven page views stored', timeoutMs: 45_000, intervalMs: 250 },
  )
}, 90_000)

describe('paths insights in the console', () => {
  it('builds paths whose chart reads out each link and whose table lists what /query/ answers', async () => {
    await page.goto(projectUrl('insights/new'))
    await page.getByRole('button', { name: 'Paths' }).click()
    await page.waitForURL(/PathsQuery/)
    expect(queryInUrl()).toEqual({
      kind: 'PathsQuery',
      dateRange: { date_from: '-7d' },
      pathsFilter: { includeEventTypes: ['$pageview'], stepLimit: 5 },
    })
    await page.getByRole('group', { name: /paths chart/ }).waitFor()
    const home = `1. ${SITE}/home`
    const pricing = `2. ${SITE}/pricing`
    const toPricing = page.getByRole('img', { name: `${home} → ${pricing}: 2 persons` })
    await toPricing.hover()
    await page.getByText(`${home} → ${pricing}: 2 persons`, { exact: true }).waitFor()
    await checkPage('insight-paths')
    // A link read by keyboard too.
    await page.getByRole('img', { name: `${home} → 2. ${SITE}/docs: 1 person` }).focus()
    await page.getByText(`${home} → 2. ${SITE}/docs: 1 person`, { exact: true }).waitFor()

    await page.getByRole('button', { name: 'Show as table' }).click()
    const rows = await rowsOf('New insight')
    expect(rows.map((row) => row.slice(0, 3))).toEqual(await answeredRows())
    expect(rows).toEqual([
      [home, pricing, '2', '2m 0s'],
      [home, `2. ${SITE}/docs`, '1', '30s'],
      [pricing, `3. ${SITE}/signup`, '1', '3m 0s'],
    ])
    await checkPage('insight-paths-table')
  }, 60_000)

  it('starts paths at a chosen page, keeps the choice in the URL, and draws in the dark and on a phone', async () => {
    await page.goto(projectUrl('insights/new'))
    await page.getByRole('button', { name: 'Paths' }).click()
    await page.getByLabel('Start point (URL, screen or event)').fill(`${SITE}/pricing`)
    await page.getByLabel('Steps').fill('3')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/startPoint/)
    expect(queryInUrl()).toMatchObject({ pathsFilter: { startPoint: `${SITE}/pricing`, stepLimit: 3 } })
    await page.getByRole('img', { name: `1. ${SITE}/pricing → 2. ${SITE}/signup: 1 person` }).waitFor()

    // The URL alone draws the same insight with the same form.
    const url = page.url()
    await page.goto('about:blank')
    await page.goto(url)
    await page.getByRole('group', { name: /paths chart/ }).waitFor()
    expect(await page.getByLabel('Start point (URL, screen or event)').inputValue()).toBe(`${SITE}/pricing`)
    expect(await page.getByLabel('Steps').inputValue()).toBe('3')
    await page.getByRole('button', { name: 'Show as table' }).click()
    expect((await rowsOf('New insight')).map((row) => row.slice(0, 3))).toEqual(await answeredRows())

    // Back to every path, drawn on a phone in the dark theme.
    await page.getByLabel('Start point (URL, screen or event)').fill('')
    await page.getByLabel('Steps').fill('5')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL((u) => !u.search.includes('startPoint'))
    // A new answer is drawn as a chart again.
    await page.getByRole('group', { name: /paths chart/ }).waitFor()
    await checkDarkAndNarrow('insight-paths-narrow')
  }, 60_000)

  it('saves paths as an insight that a dashboard draws as the same chart and table', async () => {
    await page.goto(projectUrl('insights/new'))
    await page.getByRole('button', { name: 'Paths' }).click()
    await page.waitForURL(/PathsQuery/)
    const query = queryInUrl()
    await page.getByLabel('Insight name').fill('Journeys')
    await page.getByRole('button', { name: 'Save as insight' }).click()
    await page.getByRole('heading', { name: 'Journeys', level: 1 }).waitFor()
    await page.getByRole('group', { name: /paths chart/ }).waitFor()
    await page.getByRole('combobox', { name: /^Dashboard/ }).selectOption({ label: 'A new dashboard…' })
    await page.getByLabel('New dashboard name').fill('Journeys board')
    await page.getByRole('button', { name: 'Add to dashboard' }).click()
    await page.getByRole('link', { name: 'Journeys board' }).click()

    await page.getByRole('heading', { name: 'Journeys board', level: 1 }).waitFor()
    const tile = page.getByRole('article', { name: 'Journeys' })
    await tile.getByRole('group', { name: /paths chart/ }).waitFor()
    expect(await tile.getByRole('img').count()).toBe(3)
    await checkPage('dashboard-paths')
    await tile.getByRole('button', { name: 'Show as table' }).click()
    const links = (await freshAnswerOf(service, account, query)).results as Link[]
    expect((await rowsOf('Journeys')).map((row) => row.slice(0, 3))).toEqual(
      [...links].sort((a, b) => b.value - a.value).map((l) => [named(l.source), named(l.target), String(l.value)]),
    )
    await checkDarkAndNarrow('dashboard-paths-narrow')
  }, 60_000)
})
