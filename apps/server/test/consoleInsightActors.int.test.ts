import { waitFor, type TestAccount } from '@burrow/testing'
import type { Page } from 'playwright-core'
import { PostHog } from 'posthog-node'
import { beforeAll, describe, expect, it } from 'vitest'
import { useConsoleBrowser } from './consoleBrowser'
import { freshAnswerOf } from './queryFixture'
import type { TestService } from './service'

/**
 * The persons behind a number of an insight (PostHog's persons modal) in Debian's Chromium against
 * the real service: a trend's day and a funnel's step and drop-off, opened from their table by
 * keyboard, list the persons `/query/` answers for the same ActorsQuery, a page at a time.
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

const HOUR = 3_600_000
const READERS = 105

/** The builder's query, as the page's URL keeps it. */
const queryInUrl = () => JSON.parse(new URL(page.url()).searchParams.get('q')!) as Record<string, unknown>

/** A table's body rows as text: each cell's. */
const rowsOf = (name: string) =>
  page
    .getByRole('table', { name, exact: true })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent?.trim() ?? '')))

interface Person {
  id: string
  distinct_ids: string[]
  properties: { email?: string }
}

/** The rows the dialog should list for an ActorsQuery: PostHog's display name (the email here), the first distinct id, and the count column's value. */
async function expectedRows(query: Record<string, unknown>): Promise<string[][]> {
  const results: [Person, number?][] = (await freshAnswerOf(service, account, query)).results
  return results.map(([person, count]) => [
    person.properties.email ?? person.distinct_ids[0]!,
    person.distinct_ids[0]!,
    ...(count === undefined ? [] : [String(count)]),
  ])
}

beforeAll(async () => {
  await signIn()
  // Ada views three pages today, Bob one; Cy signs up but never orders; readers open a newsletter.
  const client = new PostHog(account.projectToken, { host: service.baseUrl, flushAt: 20, flushInterval: 0 })
  const now = Date.now()
  const identify = (person: string) => ({ $set: { email: `${person}@example.com` } })
  for (const [person, count] of [
    ['ada', 3],
    ['bob', 1],
  ] as const) {
    for (let i = 0; i < count; i++) {
      client.capture({
        distinctId: person,
        event: 'page viewed',
        timestamp: new Date(now - (i + 1) * 60_000),
        properties: identify(person),
      })
    }
  }
  for (const person of ['ada', 'bob', 'cy']) {
    client.capture({ distinctId: person, event: 'signed up', timestamp: new Date(now - 3 * HOUR), properties: identify(person) })
  }
  for (const person of ['ada', 'bob']) client.capture({ distinctId: person, event: 'order placed', timestamp: new Date(now - 2 * HOUR) })
  for (let i = 0; i < READERS; i++) {
    client.capture({ distinctId: `reader-${i}`, event: 'newsletter opened', timestamp: new Date(now - 90_000) })
  }
  await client.shutdown()
  const total = 4 + 3 + 2 + READERS
  await waitFor(
    async () => {
      const { results } = await freshAnswerOf(service, account, {
        kind: 'TrendsQuery',
        series: ['page viewed', 'signed up', 'order placed', 'newsletter opened'].map((event) => ({ kind: 'EventsNode', event })),
        dateRange: { date_from: '-1d' },
        trendsFilter: { display: 'BoldNumber' },
      })
      return (results as { aggregated_value: number }[]).reduce((a, r) => a + r.aggregated_value, 0) === total ? true : undefined
    },
    { what: 'the events stored', timeoutMs: 60_000, intervalMs: 500 },
  )
}, 120_000)

describe('the persons behind a number of an insight', () => {
  it('lists a trend’s day’s persons, opened from its table by keyboard, as /query/ answers them', async () => {
    await page.goto(projectUrl('insights/new'))
    await page.getByLabel('Series 1 event').fill('page viewed')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/page%20viewed|page\+viewed/)
    await page.getByRole('img', { name: /line chart/ }).waitFor()
    await page.getByRole('button', { name: 'Show as table' }).click()

    const trend = queryInUrl()
    const [row] = (await freshAnswerOf(service, account, trend)).results as { days: string[]; labels: string[]; data: number[] }[]
    const i = row!.data.findIndex((v) => v > 0)
    expect(row!.data[i]).toBe(4)
    const cell = page.getByRole('button', { name: `4: the persons of page viewed, ${row!.labels[i]}` })
    await cell.focus()
    await page.keyboard.press('Enter')

    const dialog = page.getByRole('dialog', { name: `Persons: page viewed on ${row!.days[i]}` })
    await dialog.waitFor()
    const table = `Persons: page viewed on ${row!.days[i]}`
    await dialog.getByRole('table', { name: table }).waitFor()
    const expected = await expectedRows({
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', source: trend, series: 0, day: row!.days[i] },
      select: ['person', 'event_count'],
      orderBy: ['event_count DESC'],
    })
    expect(expected).toEqual([
      ['ada@example.com', 'ada', '3'],
      ['bob@example.com', 'bob', '1'],
    ])
    expect(await rowsOf(table)).toEqual(expected)
    // Each person links to their page.
    const href = await dialog.getByRole('link', { name: 'ada@example.com' }).getAttribute('href')
    expect(href).toMatch(new RegExp(`/project/${account.projectId}/persons/[0-9a-f-]{36}$`))
    await checkPage('insight-actors-trend')

    // Escape closes it, and the number that opened it has the focus again.
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(await cell.evaluate((el) => el === document.activeElement)).toBe(true)
  }, 60_000)

  it('lists a funnel step’s persons and those who dropped off before it', async () => {
    await page.goto(projectUrl('insights/new'))
    await page.getByRole('button', { name: 'Funnels' }).click()
    await page.getByLabel('Step 1 event').fill('signed up')
    await page.getByLabel('Step 2 event').fill('order placed')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/FunnelsQuery.*signed/)
    await page.getByRole('table', { name: 'New insight steps' }).waitFor()
    const funnel = queryInUrl()

    for (const [name, funnelStep, title] of [
      ['2: the persons of step 2, order placed', 2, 'Persons: step 2, order placed'],
      ['1: the persons of those who dropped off before step 2, order placed', -2, 'Persons: dropped off before step 2, order placed'],
    ] as const) {
      await page.getByRole('button', { name, exact: true }).focus()
      await page.keyboard.press('Enter')
      const dialog = page.getByRole('dialog', { name: title })
      await dialog.getByRole('table', { name: title }).waitFor()
      const expected = await expectedRows({
        kind: 'ActorsQuery',
        source: { kind: 'FunnelsActorsQuery', source: funnel, funnelStep },
        select: ['person'],
      })
      expect(expected.map((r) => r[0]).sort()).toEqual(funnelStep > 0 ? ['ada@example.com', 'bob@example.com'] : ['cy@example.com'])
      expect(await rowsOf(title)).toEqual(expected)
      await checkPage(`insight-actors-funnel-${funnelStep > 0 ? 'step' : 'dropped'}`)
      await dialog.getByRole('button', { name: 'Close' }).click()
      await dialog.waitFor({ state: 'hidden' })
    }
  }, 60_000)

  it('pages through more persons than a page holds', async () => {
    await page.goto(projectUrl('insights/new'))
    await page.getByLabel('Series 1 event').fill('newsletter opened')
    await page.getByLabel('Display').selectOption('ActionsTable')
    await page.waitForURL(/newsletter.*ActionsTable/)
    const trend = queryInUrl()
    await page.getByRole('button', { name: `${READERS}: the persons of newsletter opened` }).click()
    const title = 'Persons: newsletter opened'
    const dialog = page.getByRole('dialog', { name: title })
    await dialog.getByRole('table', { name: title }).waitFor()
    const pages = dialog.getByRole('navigation', { name: 'Pages of persons' })
    // A count of events does not say how many persons there are: the pager says only where it stands.
    await pages.getByText('1–100', { exact: true }).waitFor()
    const ask = (offset: number) =>
      expectedRows({
        kind: 'ActorsQuery',
        source: { kind: 'InsightActorsQuery', source: trend, series: 0 },
        select: ['person', 'event_count'],
        orderBy: ['event_count DESC'],
        limit: 100,
        offset,
      })
    expect(await rowsOf(title)).toEqual(await ask(0))
    await pages.getByRole('button', { name: 'Next 100' }).click()
    await pages.getByText(`101–${READERS}`, { exact: true }).waitFor()
    const last = await ask(100)
    expect(last).toHaveLength(READERS - 100)
    expect(await rowsOf(title)).toEqual(last)
    await checkPage('insight-actors-paged')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
  }, 60_000)
})
