import { waitFor, type TestAccount } from '@burrow/testing'
import type { Page } from 'playwright-core'
import { PostHog } from 'posthog-node'
import { beforeAll, describe, expect, it } from 'vitest'
import { useConsoleBrowser } from './consoleBrowser'
import type { TestService } from './service'

/**
 * Cohorts and a person's page in Debian's Chromium against the real service: a cohort made in
 * the editor and one uploaded as a CSV count and list the persons the REST API answers for them;
 * a person's page shows their properties and events, and deleting them there removes them.
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

/** Three persons, each made by their first event, which sets their email and plan. */
const PEOPLE = [
  { id: 'ada', email: 'ada@acme.com', plan: 'pro' },
  { id: 'bob', email: 'bob@acme.com', plan: 'free' },
  { id: 'cy', email: 'cy@other.org', plan: 'pro' },
] as const

interface Member {
  name: string
  distinct_ids: string[]
}

/** What the REST API answers for a cohort's members, once its calculation has finished. */
async function restMembers(id: string): Promise<{ count: number; names: string[] }> {
  const cohort = await waitFor(
    async () => {
      const res = await service.api(account, `/api/projects/@current/cohorts/${id}/`)
      const body = (await res.json()) as { is_calculating: boolean; last_calculation: string | null; count: number | null }
      return !body.is_calculating && body.last_calculation ? body : undefined
    },
    { what: `a calculation of cohort ${id}`, timeoutMs: 20_000, intervalMs: 100 },
  )
  const res = await service.api(account, `/api/projects/@current/cohorts/${id}/persons/`)
  expect(res.status).toBe(200)
  const page = (await res.json()) as { count?: number; results: Member[] }
  expect(cohort.count).toBe(page.results.length)
  return { count: cohort.count!, names: page.results.map((m) => m.name).sort() }
}

/** The names in the Members table. */
const memberNames = async () =>
  (await page.getByRole('table', { name: 'Members', exact: true }).locator('tbody tr td:first-child').allTextContents()).sort()

const cohortIdOf = (url: string) => /\/cohorts\/(\d+)/.exec(url)![1]!

beforeAll(async () => {
  const client = new PostHog(account.projectToken, { host: service.baseUrl, flushAt: 1, flushInterval: 0 })
  for (const person of PEOPLE) {
    client.capture({ distinctId: person.id, event: 'signed up', properties: { $set: { email: person.email, plan: person.plan } } })
    client.capture({ distinctId: person.id, event: 'order placed', properties: { total: 12 } })
  }
  await client.shutdown()
  for (const person of PEOPLE) await service.personOf(account, person.id, (p) => p.properties.plan === person.plan)
  await service.eventsOf(account, PEOPLE.length * 2)
  await signIn()
}, 60_000)

describe('cohorts in the console', () => {
  it('says what a cohort is when there are none', async () => {
    await page.goto(projectUrl('cohorts'))
    await page.getByRole('heading', { name: 'Cohorts', level: 1 }).waitFor()
    await page.getByText(/No cohorts yet/).waitFor()
    await checkPage('cohorts-empty')
  }, 30_000)

  it('makes a cohort of a person property in the editor, counting and listing the members the REST API answers', async () => {
    await page.getByRole('link', { name: 'New cohort' }).click()
    await page.getByRole('heading', { name: 'New cohort', level: 1 }).waitFor()
    await page.getByLabel('Name', { exact: true }).fill('Pro plan')
    const condition = page.getByRole('group', { name: 'Group 1' }).getByRole('group', { name: 'Condition 1' })
    await condition.getByLabel('Property').fill('plan')
    await condition.getByLabel('Operator').selectOption({ label: 'equals' })
    await condition.getByLabel('Value').fill('pro')
    await checkPage('cohort-new')
    await page.getByRole('button', { name: 'Create cohort' }).click()
    await page.waitForURL(/\/cohorts\/\d+$/)
    const id = cohortIdOf(page.url())

    const rest = await restMembers(id)
    expect(rest.names).toEqual(['ada@acme.com', 'cy@other.org'])
    await page.getByRole('heading', { name: 'Pro plan', level: 1 }).waitFor()
    await page.getByText(`${rest.count} persons`, { exact: true }).waitFor()
    await page.getByRole('table', { name: 'Members', exact: true }).waitFor()
    expect(await memberNames()).toEqual(rest.names)
    // What the editor saved is PostHog's filters of a dynamic cohort.
    const stored = (await (await service.api(account, `/api/projects/@current/cohorts/${id}/`)).json()) as Record<string, unknown>
    expect(stored).toMatchObject({
      is_static: false,
      filters: {
        properties: { type: 'OR', values: [{ type: 'AND', values: [{ type: 'person', key: 'plan', operator: 'exact', value: 'pro' }] }] },
      },
    })
    await checkPage('cohort')
    await checkDarkAndNarrow('cohort-dark-narrow')

    // Narrowed in the editor to those who placed an order in the last 7 days (all of them did).
    await page.getByRole('button', { name: 'Add condition to group 1' }).click()
    const second = page.getByRole('group', { name: 'Group 1' }).getByRole('group', { name: 'Condition 2' })
    await second.getByLabel('Condition type').selectOption({ label: 'Performed event' })
    await second.getByLabel('Event').fill('order placed')
    await second.getByLabel('In the last').fill('7')
    await page.getByRole('button', { name: 'Save cohort' }).click()
    await page.getByRole('status').getByText('Saved.').waitFor()
    expect((await restMembers(id)).names).toEqual(rest.names)
    await page.getByText(`${rest.count} persons`, { exact: true }).waitFor()

    // The list shows it with its count and kind; its search is the URL's.
    await page.getByRole('link', { name: 'All cohorts' }).click()
    await page.getByLabel('Search cohorts').fill('pro')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.waitForURL(/search=pro/)
    await page.reload()
    const row = page.getByRole('table', { name: 'Cohorts', exact: true }).getByRole('row', { name: /Pro plan/ })
    await row.getByText('Dynamic').waitFor()
    expect(await row.locator('td').allTextContents()).toEqual(expect.arrayContaining(['Pro plan', `${rest.count} persons`, 'Dynamic']))
    await checkPage('cohorts')
  }, 90_000)

  it('makes a static cohort of an uploaded CSV of distinct ids', async () => {
    await page.goto(projectUrl('cohorts'))
    await page.getByRole('button', { name: 'Upload static cohort' }).click()
    const dialog = page.getByRole('dialog', { name: 'Static cohort from a CSV' })
    await dialog.getByLabel('Name').fill('Beta testers')
    await dialog.getByLabel(/CSV file of distinct ids/).setInputFiles({
      name: 'beta.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('distinct_id\nbob\ncy\nnobody-yet\n'),
    })
    await checkPage('cohort-upload')
    await dialog.getByRole('button', { name: 'Create static cohort' }).click()
    await page.waitForURL(/\/cohorts\/\d+$/)
    const id = cohortIdOf(page.url())

    const rest = await restMembers(id)
    expect(rest.names).toEqual(['bob@acme.com', 'cy@other.org'])
    await page.getByRole('heading', { name: 'Beta testers', level: 1 }).waitFor()
    await page.getByText('Static cohort').waitFor()
    await page.getByText(`${rest.count} persons`, { exact: true }).waitFor()
    await page.getByRole('table', { name: 'Members', exact: true }).waitFor()
    expect(await memberNames()).toEqual(rest.names)
    await checkPage('cohort-static')
  }, 60_000)

  it('opens a person from a cohort: their properties and events, and deleting them removes them from the REST API', async () => {
    const ada = await service.personOf(account, 'ada')
    await page.goto(projectUrl('cohorts'))
    await page.getByRole('link', { name: 'Pro plan' }).click()
    await page.getByRole('link', { name: 'ada@acme.com' }).click()
    await page.getByRole('heading', { name: 'ada@acme.com', level: 1 }).waitFor()
    const properties = page.getByRole('table', { name: 'Properties', exact: true })
    await properties.getByRole('row', { name: /plan/ }).getByText('pro', { exact: true }).waitFor()
    await properties.getByRole('row', { name: /email/ }).getByText('ada@acme.com', { exact: true }).waitFor()
    const events = page.getByRole('table', { name: 'Recent events', exact: true })
    await events.waitFor()
    expect((await events.locator('tbody tr td:first-child').allTextContents()).sort()).toEqual(['order placed', 'signed up'])
    // Their cohorts, as PostHog's persons/cohorts answers them.
    const inCohorts = (await (await service.api(account, `/api/projects/@current/persons/cohorts/?person_id=${ada.uuid}`)).json()) as {
      results: Array<{ name: string }>
    }
    expect(inCohorts.results.map((c) => c.name)).toContain('Pro plan')
    const cohortsTable = page.getByRole('table', { name: 'Cohorts', exact: true })
    await cohortsTable.getByRole('link', { name: 'Pro plan' }).waitFor()
    expect((await cohortsTable.locator('tbody tr td:first-child').allTextContents()).sort()).toEqual(
      inCohorts.results.map((c) => c.name).sort(),
    )
    await checkPage('person')

    await checkDarkAndNarrow('person-dark-narrow')

    await page.getByRole('button', { name: 'Delete person' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete this person?' })
    await dialog.waitFor()
    await checkPage('person-delete')
    await dialog.getByRole('button', { name: 'Delete person' }).click()
    await page.getByRole('heading', { name: 'People', level: 1 }).waitFor()
    expect((await service.api(account, `/api/projects/@current/persons/${ada.uuid}/`)).status).toBe(404)
    const left = (await (await service.api(account, `/api/projects/@current/persons/?distinct_id=ada`)).json()) as { results: unknown[] }
    expect(left.results).toEqual([])

    // The People list no longer shows them, and links each other person to their page.
    const people = page.getByRole('table', { name: 'People', exact: true })
    await people.getByRole('link', { name: 'bob@acme.com', exact: true }).waitFor()
    expect(await people.getByRole('link', { name: 'ada@acme.com', exact: true }).count()).toBe(0)
    await people.getByRole('link', { name: 'bob@acme.com', exact: true }).click()
    await page.getByRole('heading', { name: 'bob@acme.com', level: 1 }).waitFor()
    await page.getByRole('listitem').getByText('bob', { exact: true }).waitFor()
  }, 60_000)

  it('pages through more people than a page holds, the page kept in the URL', async () => {
    // A hundred and five more visitors, each a person of their own.
    const batch = Array.from({ length: 105 }, (_, i) => ({ event: '$pageview', distinct_id: `visitor-${i}`, properties: {} }))
    const sent = await fetch(`${service.baseUrl}/batch/`, {
      method: 'POST',
      body: JSON.stringify({ api_key: account.projectToken, batch }),
    })
    expect(sent.status).toBe(200)
    const rest = async (offset: number) =>
      (await (await service.api(account, `/api/projects/@current/persons/?limit=100&offset=${offset}`)).json()) as {
        count: number
        results: Member[]
      }
    const first = await waitFor(async () => ((await rest(0)).count >= 105 ? rest(0) : undefined), {
      what: 'the visitors as persons',
      timeoutMs: 20_000,
      intervalMs: 200,
    })
    const second = await rest(100)
    expect(second.results.length).toBe(first.count - 100)

    const names = async () => page.getByRole('table', { name: 'People', exact: true }).locator('tbody tr td:first-child').allTextContents()
    await page.goto(projectUrl('persons'))
    const pages = page.getByRole('navigation', { name: 'Pages of people' })
    await pages.getByText(`1–100 of ${first.count}`).waitFor()
    expect(await names()).toEqual(first.results.map((p) => p.name))
    await pages.getByRole('button', { name: 'Next 100' }).click()
    await pages.getByText(`101–${first.count} of ${first.count}`).waitFor()
    expect(page.url()).toContain('offset=100')
    expect(await names()).toEqual(second.results.map((p) => p.name))
    expect(await pages.getByRole('button', { name: 'Next 100' }).isDisabled()).toBe(true)
    await checkPage('people-second-page')

    // The URL opens the same page; Previous goes back to the first.
    await page.goto(projectUrl('persons?offset=100'))
    await pages.getByText(`101–${first.count} of ${first.count}`).waitFor()
    await pages.getByRole('button', { name: 'Previous 100' }).click()
    await pages.getByText(`1–100 of ${first.count}`).waitFor()
    expect(page.url()).not.toContain('offset=')
  }, 60_000)
})
