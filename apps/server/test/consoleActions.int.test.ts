import { waitFor, type TestAccount } from '@burrow/testing'
import type { Page } from 'playwright-core'
import { PostHog } from 'posthog-node'
import { beforeAll, describe, expect, it } from 'vitest'
import { queryInUrlOf, tableRows, useConsoleBrowser } from './consoleBrowser'
import { calculatedCohort, freshAnswerOf } from './queryFixture'
import type { TestService } from './service'

/**
 * Actions in Debian's Chromium against the real service: one made step by step under Data
 * management is what the actions API answers, a trend of it shows the numbers `/query/` answers
 * for `{kind: 'ActionsNode', id}`, and its deletion takes it off the list.
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
const HOUR = 3_600_000

/** The builder's query, as the page's URL keeps it. */
const queryInUrl = () => queryInUrlOf(page)

/** A table's body rows as text: the row's heading, then its cells. */
const rowsOf = (name: string) => tableRows(page, name)

interface ActionBody {
  id: number
  name: string
  deleted: boolean
  steps: Record<string, unknown>[]
}

const listActions = async () => {
  const res = await service.api(account, `/api/projects/${account.projectId}/actions/`)
  expect(res.status).toBe(200)
  return ((await res.json()) as { results: ActionBody[] }).results
}

let actionId: number

beforeAll(async () => {
  await signIn()
  // Three page views of the pricing page (Ada, on the pro plan, twice; Bob once) and one of the home page.
  const client = new PostHog(account.projectToken, { host: service.baseUrl, flushAt: 1, flushInterval: 0 })
  const views: Array<[person: string, path: string, hoursAgo: number]> = [
    ['ada', '/pricing', 30],
    ['ada', '/pricing?plan=pro', 5],
    ['bob', '/pricing', 4],
    ['cy', '/home', 3],
  ]
  for (const [distinctId, path, hoursAgo] of views) {
    client.capture({
      distinctId,
      event: '$pageview',
      timestamp: new Date(Date.now() - hoursAgo * HOUR),
      properties: { $current_url: `${SITE}${path}`, ...(distinctId === 'ada' ? { $set: { plan: 'pro' } } : {}) },
    })
  }
  await client.shutdown()
  await waitFor(
    async () => {
      const res = await service.api(account, `/api/projects/${account.projectId}/events/?limit=100`)
      return res.ok && ((await res.json()) as { results: unknown[] }).results.length === views.length ? true : undefined
    },
    { what: 'the four page views stored', timeoutMs: 45_000, intervalMs: 250 },
  )
}, 90_000)

describe('actions in the console', () => {
  it('makes an action step by step under Data management, which the actions API answers and the list finds', async () => {
    await page.goto(projectUrl('data-management'))
    await page.getByRole('navigation', { name: 'Data management' }).getByRole('link', { name: 'Actions' }).click()
    await page.getByText('No actions yet.').waitFor()
    await checkPage('actions-empty')

    await page.getByRole('link', { name: 'New action' }).click()
    await page.getByRole('heading', { name: 'New action', level: 1 }).waitFor()
    await page.getByLabel('Name').fill('Pricing seen')
    await page.getByLabel('Description').fill('Someone looked at the prices')
    const first = page.getByRole('group', { name: 'Step 1', exact: true })
    await first.getByLabel('URL', { exact: true }).fill('/pricing')
    // A second step, tried and taken away again.
    await page.getByRole('button', { name: 'Add step' }).click()
    await page.getByRole('group', { name: 'Step 2 (or)' }).getByLabel('Event').fill('signed up')
    await checkPage('action-new')
    await page.getByRole('button', { name: 'Remove step 2' }).click()
    await page.getByRole('button', { name: 'Create action' }).click()
    await page.getByRole('heading', { name: 'Pricing seen', level: 1 }).waitFor()
    actionId = Number(/actions\/(\d+)$/.exec(new URL(page.url()).pathname)![1])

    const [saved, ...others] = await listActions()
    expect(others).toEqual([])
    expect(saved).toMatchObject({
      id: actionId,
      name: 'Pricing seen',
      description: 'Someone looked at the prices',
      deleted: false,
      steps: [{ event: '$pageview', url: '/pricing', url_matching: 'contains', text: null, href: null, tag_name: null, properties: null }],
    })

    await page.getByRole('link', { name: 'All actions' }).click()
    const table = page.getByRole('table', { name: 'Actions' })
    await table.getByRole('link', { name: 'Pricing seen' }).waitFor()
    expect(await rowsOf('Actions')).toEqual([
      ['Pricing seen', 'Someone looked at the prices', '$pageview where URL contains /pricing', expect.any(String), expect.any(String)],
    ])
    await checkPage('actions')

    // The search is kept in the URL, and a link to it finds the same.
    await page.getByLabel('Search actions').fill('checkout')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.waitForURL(/search=checkout/)
    await page.getByText('No action matches this search.').waitFor()
    await page.goto(projectUrl('data-management/actions?search=prices'))
    await table.getByRole('link', { name: 'Pricing seen' }).waitFor()
    expect(await page.getByLabel('Search actions').inputValue()).toBe('prices')
  }, 60_000)

  it("charts the action as a trend (and a retention's start) whose table shows what /query/ answers, kept in the insight's link", async () => {
    await page.goto(projectUrl('insights/new'))
    await page.getByLabel('Series 1 is').selectOption({ label: 'Action: Pricing seen' })
    await page.waitForURL(/ActionsNode/)
    expect(queryInUrl()).toMatchObject({ kind: 'TrendsQuery', series: [{ kind: 'ActionsNode', id: actionId }] })
    await page.getByRole('img', { name: /line chart/ }).waitFor()
    await checkPage('insight-action-trend')

    await page.getByRole('button', { name: 'Show as table' }).click()
    const [series] = (await freshAnswerOf(service, account, queryInUrl())).results as {
      label: string
      labels: string[]
      data: number[]
    }[]
    expect(series!.label).toBe('Pricing seen')
    expect(series!.data.reduce((a, b) => a + b, 0)).toBe(3)
    expect(await rowsOf('New insight')).toEqual(series!.labels.map((label, i) => [label, String(series!.data[i])]))

    // The link alone draws the same action.
    const url = page.url()
    await page.goto('about:blank')
    await page.goto(url)
    await page.getByRole('img', { name: /line chart/ }).waitFor()
    expect(await page.getByLabel('Series 1 is').inputValue()).toBe(`action:${actionId}`)
    expect(await page.getByLabel('Series 1 event').count()).toBe(0)

    // The action's own page charts it too.
    await page.goto(projectUrl(`data-management/actions/${actionId}`))
    await page.getByRole('link', { name: 'Chart as a trend' }).click()
    await page.waitForURL(/insights\/new/)
    expect(queryInUrl()).toMatchObject({ series: [{ kind: 'ActionsNode', id: actionId }] })
    await page.getByRole('img', { name: /line chart/ }).waitFor()

    // Retention starts with it too: Ada and Bob first saw the prices in the week.
    await page.getByRole('button', { name: 'Retention' }).click()
    await page.getByLabel('Start is').selectOption({ label: 'Action: Pricing seen' })
    await page.waitForURL(/RetentionQuery.*actions/)
    expect(queryInUrl()).toMatchObject({ retentionFilter: { targetEntity: { id: actionId, type: 'actions' } } })
    const cohorts = (await freshAnswerOf(service, account, queryInUrl())).results as { date: string; values: { count: number }[] }[]
    await page.getByRole('table', { name: 'New insight' }).waitFor()
    const table = await rowsOf('New insight')
    expect(table.map((row) => [row[0], row[1]])).toEqual(cohorts.map((c) => [c.date.slice(0, 10), String(c.values[0]!.count)]))
    expect(cohorts.reduce((sum, c) => sum + c.values[0]!.count, 0)).toBe(2)
    await checkPage('insight-action-retention')
  }, 60_000)

  it('breaks the trend of the action down by a cohort and all users, then by a HogQL expression, as /query/ answers', async () => {
    const pro = await calculatedCohort(service, account, {
      name: 'Pro plan',
      filters: {
        properties: { type: 'OR', values: [{ type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person', operator: 'exact' }] }] },
      },
    })
    expect(pro.count).toBe(1)
    /** The table's heading and rows, and what `/query/` answers for the query in the URL, by breakdown label. */
    const tableAndAnswer = async () => {
      await page.getByRole('button', { name: 'Show as table' }).click()
      const answered = (await freshAnswerOf(service, account, queryInUrl())).results as {
        label: string
        labels: string[]
        data: number[]
      }[]
      const table = page.getByRole('table', { name: 'New insight', exact: true })
      expect(await table.locator('thead th').allTextContents()).toEqual(['Date', ...answered.map((r) => r.label)])
      expect(await rowsOf('New insight')).toEqual(answered[0]!.labels.map((label, i) => [label, ...answered.map((r) => String(r.data[i]))]))
      return Object.fromEntries(answered.map((r) => [r.label, r.data.reduce((a, b) => a + b, 0)]))
    }

    await page.goto(projectUrl('insights/new'))
    await page.getByLabel('Series 1 is').selectOption({ label: 'Action: Pricing seen' })
    await page.waitForURL(/ActionsNode/)
    await page.getByLabel('Breakdown 1 type').selectOption({ label: 'Cohort' })
    const cohorts = page.getByRole('group', { name: 'Breakdown 1 cohorts' })
    await cohorts.getByLabel('Pro plan').check()
    await cohorts.getByLabel('All users').check()
    await page.waitForURL(/%22all%22|"all"/)
    expect(queryInUrl().breakdownFilter).toEqual({ breakdown_type: 'cohort', breakdown: [pro.id, 'all'] })
    await page.getByRole('img', { name: /line chart/ }).waitFor()
    await checkPage('insight-action-cohorts')
    expect(await tableAndAnswer()).toEqual({ 'Pro plan': 2, 'all users': 3 })

    const expression = "if(properties.$current_url like '%plan=pro%', 'pro page', 'other page')"
    await page.getByLabel('Breakdown 1 type').selectOption({ label: 'HogQL expression' })
    await page.getByLabel('Breakdown 1 HogQL expression').fill(expression)
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/hogql/)
    expect(queryInUrl().breakdownFilter).toEqual({ breakdown_type: 'hogql', breakdown: expression })
    // From its link alone, the same expression and numbers.
    const url = page.url()
    await page.goto('about:blank')
    await page.goto(url)
    await page.getByRole('img', { name: /line chart/ }).waitFor()
    expect(await page.getByLabel('Breakdown 1 HogQL expression').inputValue()).toBe(expression)
    await checkPage('insight-action-hogql')
    await checkDarkAndNarrow('insight-action-hogql-narrow')
    expect(await tableAndAnswer()).toEqual({ 'pro page': 1, 'other page': 2 })

    // A funnel keeps the expression (never cohorts), and the service answers it.
    await page.getByRole('button', { name: 'Funnels' }).click()
    await page.waitForURL(/FunnelsQuery/)
    expect(queryInUrl().breakdownFilter).toEqual({ breakdown_type: 'hogql', breakdown: expression })
    await freshAnswerOf(service, account, queryInUrl())
    await page.getByText(/^Computed /).waitFor()
    expect(await page.getByRole('alert').count()).toBe(0)
    await checkPage('insight-action-funnel-hogql')
  }, 60_000)

  it('deletes the action after asking, which takes it off the list and keeps it in the API as deleted', async () => {
    await page.goto(projectUrl(`data-management/actions/${actionId}`))
    await page.getByRole('heading', { name: 'Pricing seen', level: 1 }).waitFor()
    await checkDarkAndNarrow('action-narrow')
    await page.getByRole('button', { name: 'Delete action' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete this action?' })
    await dialog.getByText('insights that chart it are refused').waitFor()
    await checkPage('action-delete')
    await dialog.getByRole('button', { name: 'Delete action' }).click()
    await page.waitForURL(/data-management\/actions$/)
    await page.getByText('No actions yet.').waitFor()

    expect(await listActions()).toEqual([])
    const res = await service.api(account, `/api/projects/${account.projectId}/actions/${actionId}/`)
    expect(((await res.json()) as ActionBody).deleted).toBe(true)
  }, 60_000)
})
