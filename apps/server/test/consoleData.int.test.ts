import { waitFor, type TestAccount } from '@burrow/testing'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { tableRows, useConsoleBrowser } from './consoleBrowser'
import { freshAnswerOf } from './queryFixture'
import type { TestService } from './service'

/**
 * The SQL and Data management pages in Debian's Chromium against the real service: a HogQL
 * query typed into the editor shows the counts `/query/` answers for it and stays in the URL, a
 * bad query shows the service's refusal and where it points, and an event's description edited
 * in Data management is what the REST API answers afterwards.
 */
let service: TestService
let account: TestAccount
let page: Page
let checkPage: (name: string) => Promise<void>
let checkDarkAndNarrow: (name: string) => Promise<void>
let projectUrl: (page: string) => string
let signIn: () => Promise<void>
useConsoleBrowser((h) => {
  ;({ service, account, page, checkPage, projectUrl, signIn, checkDarkAndNarrow } = h)
})

const COUNTS = { $pageview: 3, signup: 2, purchase: 1 }
const SENT = Object.values(COUNTS).reduce((a, b) => a + b, 0)
const QUERY = 'select event, count() from events group by event'

/** A table's body rows as the text of their cells. */
const rowsOf = (name: string) => tableRows(page, name)

const editor = () => page.getByRole('textbox', { name: 'HogQL query' })

/** Replaces the editor's text as a person would: select everything, then type. */
async function typeQuery(text: string) {
  await editor().click()
  await page.keyboard.press('ControlOrMeta+A')
  await page.keyboard.insertText(text)
}

beforeAll(async () => {
  await signIn()
  const minute = 60_000
  const start = Date.now() - 30 * minute
  const batch = Object.entries(COUNTS).flatMap(([event, n]) =>
    Array.from({ length: n }, (_, i) => ({ event, distinct_id: `user-${i}`, timestamp: new Date(start + i * minute).toISOString() })),
  )
  const res = await service.post('/batch/', { api_key: account.projectToken, batch })
  expect(res.status).toBe(200)
  await service.eventsOf(account, SENT)
}, 60_000)

describe('the SQL page', () => {
  it('runs a query typed into the editor with Ctrl+Enter and shows the counts /query/ answers, kept in the URL', async () => {
    const answer = (await freshAnswerOf(service, account, { kind: 'HogQLQuery', query: QUERY })) as {
      results: [string, unknown][]
      columns: string[]
    }
    const expected = answer.results.map(([event, n]) => [event, typeof n === 'string' ? n : JSON.stringify(n)]).sort()
    expect(Object.fromEntries(answer.results.map(([event, n]) => [event, Number(n)]))).toEqual(COUNTS)

    // CodeMirror is not part of a first visit: it comes with the SQL page.
    const editorLoaded = () =>
      page.evaluate(() => performance.getEntriesByType('resource').some((entry) => /\/assets\/SqlEditor-[^/]*\.js$/.test(entry.name)))
    await page.goto(projectUrl('events'))
    await page.getByRole('heading', { name: 'Live events' }).waitFor()
    expect(await editorLoaded()).toBe(false)
    await page.getByRole('link', { name: 'SQL', exact: true }).click()
    await page.getByRole('heading', { name: 'SQL', level: 1 }).waitFor()
    await editor().waitFor()
    expect(await editorLoaded()).toBe(true)
    await page.getByText(/Write a query and run it/).waitFor()
    await checkPage('sql-empty')

    await typeQuery(QUERY)
    await page.keyboard.press('ControlOrMeta+Enter')
    await page.waitForURL((url) => url.searchParams.get('q') === QUERY)
    await page.getByRole('table', { name: 'Query result' }).waitFor()
    const headers = await page.getByRole('table', { name: 'Query result' }).locator('thead th').allTextContents()
    expect(headers).toEqual(answer.columns)
    expect((await rowsOf('Query result')).sort()).toEqual(expected)
    await checkPage('sql-result')

    // The link alone runs it again, the editor holding its text.
    await page.reload()
    await page.getByRole('table', { name: 'Query result' }).waitFor()
    expect((await rowsOf('Query result')).sort()).toEqual(expected)
    expect(await editor().textContent()).toBe(QUERY)

    // Its colours hold in the dark theme and its content in a narrow window.
    await checkDarkAndNarrow('sql-result-dark-narrow')
  }, 60_000)

  it("shows a bad query's refusal in the service's words and puts the cursor where it points", async () => {
    const bad = 'select event, count( from events group by event'
    await page.goto(projectUrl('sql'))
    await typeQuery(bad)
    await page.getByRole('button', { name: 'Run' }).click()
    const alert = page.getByRole('alert')
    await alert.waitFor()
    const words = (await alert.locator('p').textContent()) ?? ''
    expect(words).toMatch(/^SyntaxError in the query \(line \d+, column \d+\): /)
    await alert.getByRole('button', { name: /^Go to line \d+, column \d+$/ }).click()
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.getAttribute('aria-label')))
      .toBe('HogQL query')
    await checkPage('sql-error')
  }, 30_000)
})

describe('the Data management page', () => {
  it("lists the events, searches in the URL, and saves an event's description that the REST API then answers", async () => {
    await page.goto(projectUrl('data-management'))
    await page.getByRole('heading', { name: 'Data management', level: 1 }).waitFor()
    await page.getByRole('table', { name: 'Event definitions' }).waitFor()
    const names = (await rowsOf('Event definitions')).map((row) => row[0])
    expect(names.sort()).toEqual(Object.keys(COUNTS).sort())
    await checkPage('data-management')

    await page.getByLabel('Search events').fill('sign')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.waitForURL(/search=sign/)
    await expect.poll(async () => (await rowsOf('Event definitions')).map((row) => row[0])).toEqual(['signup'])
    await page.reload()
    await page.getByRole('table', { name: 'Event definitions' }).waitFor()
    expect((await rowsOf('Event definitions')).map((row) => row[0])).toEqual(['signup'])
    const [signup] = await rowsOf('Event definitions')
    // Volume over 30 days: the two signups sent.
    expect(signup![5]).toBe('2')

    await page.getByRole('button', { name: 'Edit signup' }).click()
    const dialog = page.getByRole('dialog', { name: 'Edit signup' })
    await dialog.waitFor()
    await dialog.getByLabel('Description', { exact: true }).fill('Someone made an account')
    await dialog.getByLabel('Tags (separated by commas)').fill('growth, onboarding')
    await dialog.getByRole('checkbox', { name: /Verified/ }).check()
    await checkPage('data-management-edit')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await expect
      .poll(async () => (await rowsOf('Event definitions'))[0]?.slice(1, 4))
      .toEqual(['Someone made an account', 'growthonboarding', 'Verified'])

    const rest = await waitFor(
      async () => {
        const res = await service.api(account, '/api/projects/@current/event_definitions/?search=signup')
        const body = (await res.json()) as { results: { name: string; description: string; tags: string[]; verified: boolean }[] }
        return body.results.find((d) => d.name === 'signup')
      },
      { what: 'the signup definition', timeoutMs: 5_000 },
    )
    expect(rest).toMatchObject({ description: 'Someone made an account', tags: ['growth', 'onboarding'], verified: true })

    await checkDarkAndNarrow('data-management-dark-narrow')
  }, 60_000)
})
