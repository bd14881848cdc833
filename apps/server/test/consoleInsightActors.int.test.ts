import { waitFor, type TestAccount } from '@burrow/testing'
import type { Page } from 'playwright-core'
import { PostHog } from 'posthog-node'
import { beforeAll, describe, expect, it } from 'vitest'
import { queryInUrlOf, tableRows, useConsoleBrowser } from './consoleBrowser'
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
let checkDarkAndNarrow: (name: string) => Promise<void>
let projectUrl: (page: string) => string
let signIn: () => Promise<void>
useConsoleBrowser((h) => {
  ;({ service, account, page, checkPage, checkDarkAndNarrow, projectUrl, signIn } = h)
})

const HOUR = 3_600_000
const READERS = 105

/** The builder's query, as the page's URL keeps it. */
const queryInUrl = () => queryInUrlOf(page)

/** A table's body rows as text: each cell's. */
const rowsOf = (name: string) => tableRows(page, name)

interface Person {
  id: string
  distinct_ids: string[]
  properties: { email?: string }
}

/** The rows the dialog should list for an ActorsQuery: PostHog's display name (the email here), the first distinct id, and the count column's value. */
async function expectedRows(query: Record<string, unknown>): Promise<string[][]> {
  const results: [Person, (number | number[])?][] = (await freshAnswerOf(service, account, query)).results
  return results.map(([person, count]) => [
    person.properties.email ?? person.distinct_ids[0]!,
    person.distinct_ids[0]!,
    // A retention cohort's column is the periods each person came in.
    ...(count === undefined ? [] : [Array.isArray(count) ? count.join(', ') : String(count)]),
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
        properties: { ...identify(person), plan: person === 'ada' ? 'pro' : 'free' },
      })
    }
  }
  // Cy's one page view, eight days ago, falls in the previous week.
  client.capture({
    distinctId: 'cy',
    event: 'page viewed',
    timestamp: new Date(now - 8 * 24 * HOUR),
    properties: { ...identify('cy'), plan: 'pro' },
  })
  for (const person of ['ada', 'bob', 'cy']) {
    client.capture({ distinctId: person, event: 'signed up', timestamp: new Date(now - 3 * HOUR), properties: identify(person) })
  }
  for (const person of ['ada', 'bob']) client.capture({ distinctId: person, event: 'order placed', timestamp: new Date(now - 2 * HOUR) })
  for (let i = 0; i < READERS; i++) {
    client.capture({ distinctId: `reader-${i}`, event: 'newsletter opened', timestamp: new Date(now - 90_000) })
  }
  await client.shutdown()
  const total = 4 + 1 + 3 + 2 + READERS
  await waitFor(
    async () => {
      const { results } = await freshAnswerOf(service, account, {
        kind: 'TrendsQuery',
        series: ['page viewed', 'signed up', 'order placed', 'newsletter opened'].map((event) => ({ kind: 'EventsNode', event })),
        dateRange: { date_from: '-14d' },
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
    await checkDarkAndNarrow('insight-actors-trend-dark-narrow')

    // Escape closes it, and the number that opened it has the focus again.
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(await cell.evaluate((el) => el === document.activeElement)).toBe(true)

    // On the chart, a click on a point opens the same list: today's is the last, at the right edge.
    await page.getByRole('button', { name: 'Show as table' }).click()
    const over = page.locator('.chart .u-over')
    const box = (await over.boundingBox())!
    await over.click({ position: { x: box.width - 2, y: box.height / 2 } })
    await dialog.getByRole('table', { name: table }).waitFor()
    expect(await rowsOf(table)).toEqual(expected)
    await dialog.getByRole('button', { name: 'Close' }).click()
    await dialog.waitFor({ state: 'hidden' })
  }, 60_000)

  it('lists the persons of a breakdown value, in the period and the one before, and says when a day has none', async () => {
    await page.goto(projectUrl('insights/new'))
    await page.getByLabel('Series 1 event').fill('page viewed')
    await page.getByLabel('Breakdown 1 property').fill('plan')
    await page.getByLabel('Compare to previous period').check()
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/compareFilter.*breakdownFilter|breakdownFilter.*compareFilter/)
    await page.getByRole('img', { name: /line chart/ }).waitFor()
    await page.getByRole('button', { name: 'Show as table' }).click()
    const trend = queryInUrl()
    type Row = { label: string; days: string[]; labels: string[]; data: number[]; breakdown_value: string; compare_label: string }
    const rows = (await freshAnswerOf(service, account, trend)).results as Row[]
    expect(rows.map((r) => [r.breakdown_value, r.compare_label])).toContainEqual(['pro', 'current'])
    const pro = rows.find((r) => r.breakdown_value === 'pro' && r.compare_label === 'current')!
    const i = pro.data.findIndex((v) => v > 0)
    await page.getByRole('button', { name: `${pro.data[i]}: the persons of ${pro.label}, ${pro.labels[i]}` }).press('Enter')
    const title = `Persons: ${pro.label} on ${pro.days[i]}`
    const dialog = page.getByRole('dialog', { name: title })
    await dialog.getByRole('table', { name: title }).waitFor()
    const expected = await expectedRows({
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', source: trend, series: 0, day: pro.days[i], breakdown: 'pro' },
      select: ['person', 'event_count'],
      orderBy: ['event_count DESC'],
    })
    expect(expected).toEqual([['ada@example.com', 'ada', '3']])
    expect(await rowsOf(title)).toEqual(expected)
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })

    // The previous week's day: Cy's page view, in the row of the day a week later.
    const before = rows.find((r) => r.breakdown_value === 'pro' && r.compare_label === 'previous')!
    const k = before.data.findIndex((v) => v > 0)
    await page.getByRole('button', { name: `1: the persons of ${before.label} (previous period), ${pro.labels[k]}` }).press('Enter')
    const previousTitle = `Persons: ${before.label} on ${before.days[k]} (previous period)`
    const previous = page.getByRole('dialog', { name: previousTitle })
    await previous.getByRole('table', { name: previousTitle }).waitFor()
    const lastWeek = await expectedRows({
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', source: trend, series: 0, day: before.days[k], breakdown: 'pro', compare: 'previous' },
      select: ['person', 'event_count'],
      orderBy: ['event_count DESC'],
    })
    expect(lastWeek).toEqual([['cy@example.com', 'cy', '1']])
    expect(await rowsOf(previousTitle)).toEqual(lastWeek)
    await page.keyboard.press('Escape')
    await previous.waitFor({ state: 'hidden' })

    // A day before, with no page view: the dialog says there is no one, as /query/ finds no one.
    const j = pro.data.findIndex((v) => v === 0)
    await page.getByRole('button', { name: `0: the persons of ${pro.label}, ${pro.labels[j]}` }).press('Enter')
    const empty = page.getByRole('dialog', { name: `Persons: ${pro.label} on ${pro.days[j]}` })
    await empty.getByText('No persons behind this number.').waitFor()
    const none = await expectedRows({
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', source: trend, series: 0, day: pro.days[j], breakdown: 'pro' },
      select: ['person', 'event_count'],
    })
    expect(none).toEqual([])
    await checkPage('insight-actors-empty')
    await page.keyboard.press('Escape')
    await empty.waitFor({ state: 'hidden' })
  }, 60_000)

  it('lists the persons of a lifecycle bar, a stickiness bar and a retention cohort', async () => {
    await page.goto(projectUrl('insights/new'))
    const open = async (name: string, title: string, source: Record<string, unknown>, select = ['person']) => {
      await page.getByRole('button', { name, exact: true }).press('Enter')
      const dialog = page.getByRole('dialog', { name: title })
      await dialog.getByRole('table', { name: title }).waitFor()
      const expected = await expectedRows({ kind: 'ActorsQuery', source, select })
      expect(await rowsOf(title)).toEqual(expected)
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'hidden' })
      return expected.map((r) => r[0])
    }

    await page.getByRole('button', { name: 'Lifecycle' }).click()
    await page.getByLabel('Series 1 event').fill('signed up')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/LifecycleQuery.*signed/)
    await page.getByRole('button', { name: 'Show as table' }).click()
    const lifecycle = queryInUrl()
    type Row = { status: string; label: string; days: string[]; labels: string[]; data: number[] }
    const statuses = (await freshAnswerOf(service, account, lifecycle)).results as Row[]
    // Today's sign-ups: Ada and Bob are new, Cy (first seen last week) is not.
    const fresh = statuses.find((r) => r.status === 'new')!
    const day = fresh.data.findIndex((v) => v > 0)
    const newcomers = await open(`2: the persons of new, ${statuses[0]!.labels[day]}`, `Persons: new on ${fresh.days[day]}`, {
      kind: 'InsightActorsQuery',
      source: lifecycle,
      day: fresh.days[day],
      status: 'new',
    })
    expect(newcomers.sort()).toEqual(['ada@example.com', 'bob@example.com'])

    await page.getByRole('button', { name: 'Stickiness' }).click()
    await page.getByLabel('Series 1 event').fill('page viewed')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/StickinessQuery.*page/)
    await page.getByRole('button', { name: 'Show as table' }).click()
    const stickiness = queryInUrl()
    const [sticky] = (await freshAnswerOf(service, account, stickiness)).results as Row[]
    const once = await open(`2: the persons of ${sticky!.label}, ${sticky!.labels[0]}`, `Persons: ${sticky!.label}, active in 1 interval`, {
      kind: 'InsightActorsQuery',
      source: stickiness,
      series: 0,
      day: 1,
    })
    expect(once.sort()).toEqual(['ada@example.com', 'bob@example.com'])

    await page.getByRole('button', { name: 'Retention' }).click()
    await page.getByLabel('Start event').fill('signed up')
    await page.getByLabel('Return event').fill('order placed')
    await page.getByRole('button', { name: 'Apply' }).click()
    await page.waitForURL(/RetentionQuery.*signed/)
    const retention = queryInUrl()
    const cohorts = (await freshAnswerOf(service, account, retention)).results as { date: string; values: { count: number }[] }[]
    const interval = cohorts.findIndex((c) => c.values[0]!.count > 0)
    const cohort = cohorts[interval]!.date.slice(0, 10)
    const members = await open(
      `3: the persons of the cohort of ${cohort}`,
      `Persons: the cohort of ${cohort}`,
      { kind: 'InsightActorsQuery', source: retention, interval },
      ['person', 'appearances'],
    )
    expect(members.sort()).toEqual(['ada@example.com', 'bob@example.com', 'cy@example.com'])
    await checkPage('insight-actors-retention')
  }, 60_000)

  it('lists the persons behind a number of a dashboard’s tile', async () => {
    const created = await service.api(account, `/api/projects/${account.projectId}/dashboards/`, {
      method: 'POST',
      body: JSON.stringify({ name: 'Reading' }),
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: number }
    const trend = {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: 'page viewed', name: 'page viewed' }],
      dateRange: { date_from: '-7d' },
    }
    const insight = await service.api(account, `/api/projects/${account.projectId}/insights/`, {
      method: 'POST',
      body: JSON.stringify({ name: 'Page views', saved: true, dashboards: [id], query: { kind: 'InsightVizNode', source: trend } }),
    })
    expect(insight.status).toBe(201)
    await page.goto(projectUrl(`dashboards/${id}`))
    const tile = page.getByRole('article', { name: 'Page views' })
    await tile.getByRole('img', { name: /line chart/ }).waitFor()
    await tile.getByRole('button', { name: 'Show as table' }).click()
    const [row] = (await freshAnswerOf(service, account, trend)).results as { days: string[]; labels: string[]; data: number[] }[]
    const i = row!.data.findIndex((v) => v > 0)
    await tile.getByRole('button', { name: `4: the persons of page viewed, ${row!.labels[i]}` }).press('Enter')
    const title = `Persons: page viewed on ${row!.days[i]}`
    const dialog = page.getByRole('dialog', { name: title })
    await dialog.getByRole('table', { name: title }).waitFor()
    const expected = await expectedRows({
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', source: trend, series: 0, day: row!.days[i] },
      select: ['person', 'event_count'],
      orderBy: ['event_count DESC'],
    })
    expect(await rowsOf(title)).toEqual(expected)
    await checkPage('dashboard-actors')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
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

  it('shows the refusal of a number whose persons the service does not list, in its own words', async () => {
    // A lifecycle of groups (as a link from PostHog may hold): the bars draw, their persons are refused.
    const lifecycle = {
      kind: 'LifecycleQuery',
      series: [{ kind: 'EventsNode', event: 'signed up', name: 'signed up' }],
      interval: 'day',
      dateRange: { date_from: '-7d' },
      aggregation_group_type_index: 0,
    }
    await page.goto(projectUrl(`insights/new?q=${encodeURIComponent(JSON.stringify(lifecycle))}`))
    await page.getByRole('img', { name: /bar chart/ }).waitFor()
    await page.getByRole('button', { name: 'Show as table' }).click()
    const [row] = (await freshAnswerOf(service, account, lifecycle)).results as {
      status: string
      days: string[]
      labels: string[]
      data: number[]
    }[]
    await page.getByRole('button', { name: `${row!.data[0]}: the persons of ${row!.status}, ${row!.labels[0]}` }).press('Enter')
    const refused = await service.api(account, `/api/projects/${account.projectId}/query/`, {
      method: 'POST',
      body: JSON.stringify({
        query: { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: lifecycle, day: row!.days[0], status: row!.status } },
      }),
    })
    expect(refused.status).toBe(400)
    const { detail } = (await refused.json()) as { detail: string }
    const alert = page.getByRole('dialog').getByRole('alert')
    await alert.waitFor()
    expect(await alert.textContent()).toContain(detail)
    await checkPage('insight-actors-refused')
    await page.keyboard.press('Escape')
    await page.getByRole('dialog').waitFor({ state: 'hidden' })
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
