import type { TestAccount } from '@burrow/testing'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { useConsoleBrowser } from './consoleBrowser'
import type { TestService } from './service'

/**
 * A feature flag's page in Debian's Chromium against the real service: a flag made in the list
 * and given a condition on a person property and two variants split 50/50 is what the REST API
 * answers, and /decide/ (and the page's "what does this distinct id get") gives a variant to a
 * person with that property and false to one without; a split that does not add up to 100 is
 * said in the form and saves nothing; the service's refusal is shown in its words; deleting the
 * flag after a confirmation removes it.
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

const FLAG = 'new-checkout'

/** A flag's filters as the REST API answers them. */
async function restFilters(id: string): Promise<Record<string, unknown>> {
  const res = await service.api(account, `/api/projects/@current/feature_flags/${id}/`)
  expect(res.status).toBe(200)
  return ((await res.json()) as { filters: Record<string, unknown> }).filters
}

/** What /decide/ gives a distinct id for the flag. */
async function decide(distinctId: string): Promise<unknown> {
  const res = await service.post('/decide/?v=3', { token: account.projectToken, distinct_id: distinctId })
  expect(res.status).toBe(200)
  return ((await res.json()) as { featureFlags: Record<string, unknown> }).featureFlags[FLAG] ?? false
}

beforeAll(async () => {
  // Two persons, made by their first event over HTTP, one on the pro plan.
  for (const [id, plan] of [
    ['pro-user', 'pro'],
    ['free-user', 'free'],
  ] as const) {
    const res = await service.post('/capture/', {
      api_key: account.projectToken,
      event: 'signed up',
      distinct_id: id,
      properties: { $set: { plan } },
    })
    expect(res.status).toBe(200)
  }
  await service.personOf(account, 'pro-user', (p) => p.properties.plan === 'pro')
  await service.personOf(account, 'free-user', (p) => p.properties.plan === 'free')
  await signIn()
}, 60_000)

describe('feature flags in the console', () => {
  it('makes a flag with a condition and two variants that /decide/ and the page answer alike', async () => {
    await page.goto(projectUrl('feature_flags'))
    await page.getByText(/No feature flags yet/).waitFor()
    await checkPage('flags-empty')
    const form = page.getByRole('form', { name: 'New feature flag' })
    await form.getByLabel('Key').fill(FLAG)
    await form.getByLabel('Description').fill('The new checkout')
    await form.getByRole('button', { name: 'Create flag' }).click()
    await page.getByRole('table', { name: 'Feature flags' }).getByRole('link', { name: FLAG }).click()
    await page.waitForURL(/\/feature_flags\/\d+$/)
    const id = /\/feature_flags\/(\d+)/.exec(page.url())![1]!
    await page.getByRole('heading', { name: `Flag ${FLAG}`, level: 1 }).waitFor()
    await checkPage('flag')

    // A condition on the person's plan, and two variants split 50/50 with a payload.
    const set = page.getByRole('group', { name: 'Condition set 1' })
    await set.getByRole('button', { name: 'Add condition to set 1' }).click()
    const condition = set.getByRole('group', { name: 'Condition 1' })
    await condition.getByLabel('Person property').fill('plan')
    await condition.getByLabel('Operator').selectOption({ label: 'equals' })
    await condition.getByLabel('Value').fill('pro')
    await page.getByRole('button', { name: 'Add variant' }).click()
    await page.getByLabel('Payload of test').fill('{"color": "green"}')
    await checkPage('flag-edit')
    await page.getByRole('button', { name: 'Save flag' }).click()
    await page.getByRole('status').getByText('Saved.').waitFor()

    const expected = {
      groups: [{ properties: [{ key: 'plan', type: 'person', operator: 'exact', value: 'pro' }], rollout_percentage: 100, variant: null }],
      multivariate: {
        variants: [
          { key: 'control', rollout_percentage: 50 },
          { key: 'test', rollout_percentage: 50 },
        ],
      },
      payloads: { test: '{"color": "green"}' },
    }
    expect(await restFilters(id)).toMatchObject(expected)

    // /decide/ gives the person on the pro plan a variant, and the other false.
    const variant = await decide('pro-user')
    expect(['control', 'test']).toContain(variant)
    expect(await decide('free-user')).toBe(false)

    // The page asks the same of /decide/.
    const evaluate = page.getByRole('form', { name: 'Evaluate the flag' })
    await evaluate.getByLabel('Distinct id').fill('pro-user')
    await evaluate.getByRole('button', { name: 'Evaluate' }).click()
    await page.waitForURL(/distinct_id=pro-user/)
    const answer = page.getByRole('status').filter({ hasText: 'pro-user gets' })
    await answer.getByText(JSON.stringify(variant), { exact: true }).waitFor()
    if (variant === 'test') await answer.getByText('{"color": "green"}').waitFor()
    await checkPage('flag-evaluation')
    // The distinct id is the URL's: the link asks again.
    await page.reload()
    await page.getByRole('status').filter({ hasText: 'pro-user gets' }).getByText(JSON.stringify(variant), { exact: true }).waitFor()
    await evaluate.getByLabel('Distinct id').fill('free-user')
    await evaluate.getByRole('button', { name: 'Evaluate' }).click()
    await page.getByRole('status').filter({ hasText: 'free-user gets' }).getByText('false', { exact: true }).waitFor()
    // Person properties sent with the question count as /decide/ counts them.
    await evaluate.getByLabel('Person properties (JSON, optional)').fill('{"plan": "pro"}')
    await evaluate.getByRole('button', { name: 'Evaluate' }).click()
    await page
      .getByRole('status')
      .filter({ hasText: 'free-user gets' })
      .getByText(/^"(control|test)"$/)
      .waitFor()

    // The list shows its rollout and links to it.
    await page.getByRole('link', { name: 'All flags' }).click()
    const row = page.getByRole('table', { name: 'Feature flags' }).getByRole('row', { name: new RegExp(FLAG) })
    await row.getByText('100% of matching users').waitFor()
    await checkPage('flags')
  }, 90_000)

  it('says a split that does not add up to 100 in the form and saves nothing; a refusal in the service’s words', async () => {
    await page.goto(projectUrl('feature_flags'))
    await page.getByRole('table', { name: 'Feature flags' }).getByRole('link', { name: FLAG }).click()
    await page.waitForURL(/\/feature_flags\/\d+$/)
    const id = /\/feature_flags\/(\d+)/.exec(page.url())![1]!
    const before = await restFilters(id)

    await page.getByRole('group', { name: 'Variant 1' }).getByLabel('Rollout (%)').fill('60')
    await page.getByRole('alert').getByText("The variants' rollout percentages add up to 110%, not 100%.").waitFor()
    await page.getByRole('button', { name: 'Save flag' }).click()
    await checkPage('flag-bad-split')
    expect(await page.getByRole('status').getByText('Saved.').count()).toBe(0)
    expect(await restFilters(id)).toEqual(before)

    // A pattern the service cannot read is refused in its own words.
    await page.getByRole('group', { name: 'Variant 1' }).getByLabel('Rollout (%)').fill('50')
    const condition = page.getByRole('group', { name: 'Condition set 1' }).getByRole('group', { name: 'Condition 1' })
    await condition.getByLabel('Operator').selectOption({ label: 'matches the pattern' })
    await condition.getByLabel('Value').fill('(')
    await page.getByRole('button', { name: 'Save flag' }).click()
    await page.getByRole('alert').getByText('The value of "plan" is not a valid regular expression.').waitFor()
    expect(await restFilters(id)).toEqual(before)

    await checkDarkAndNarrow('flag-dark-narrow')
  }, 60_000)

  it('deletes a flag after a confirmation', async () => {
    await page.goto(projectUrl('feature_flags'))
    await page.getByRole('table', { name: 'Feature flags' }).getByRole('link', { name: FLAG }).click()
    await page.waitForURL(/\/feature_flags\/\d+$/)
    const id = /\/feature_flags\/(\d+)/.exec(page.url())![1]!
    await page.getByRole('button', { name: 'Delete flag' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete this flag?' })
    await checkPage('flag-delete')
    await dialog.getByRole('button', { name: 'Delete flag' }).click()
    await page.getByText(/No feature flags yet/).waitFor()
    // Deleted as PostHog deletes a flag: kept, marked deleted, and no longer listed.
    const res = await service.api(account, `/api/projects/@current/feature_flags/${id}/`)
    expect(((await res.json()) as { deleted: boolean }).deleted).toBe(true)
    const list = await service.api(account, '/api/projects/@current/feature_flags/')
    expect(((await list.json()) as { results: unknown[] }).results).toEqual([])
    expect(await decide('pro-user')).toBe(false)
    await page.goto(projectUrl(`feature_flags/${id}`))
    await page
      .getByRole('alert')
      .getByText(/was deleted/)
      .waitFor()
    await checkPage('flag-deleted')
  }, 30_000)
})
