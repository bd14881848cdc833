import { randomUUID } from 'node:crypto'
import { waitFor, type TestAccount } from '@burrow/testing'
import type { Page } from 'playwright-core'
import { beforeAll, describe, expect, it } from 'vitest'
import { useConsoleBrowser } from './consoleBrowser'
import type { TestService } from './service'

/**
 * The Plugins and Early access pages in Debian's Chromium against the real service: the
 * Property Filter enabled and configured in the console removes a property from the events
 * captured afterwards, as the events API shows; plugins are moved, switched off and their log
 * read; an early access feature created in the console is what the REST API answers.
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

async function getJson<T>(path: string): Promise<T> {
  const res = await service.api(account, path)
  expect(res.status).toBe(200)
  return (await res.json()) as T
}

/** A table's body rows as text, cell by cell. */
const rowsOf = (name: string) =>
  page
    .getByRole('table', { name, exact: true })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent?.trim() ?? '')))

interface StoredConfig {
  id: number
  plugin: number
  enabled: boolean
  order: number
  config: Record<string, unknown>
}
const configs = async () =>
  (await getJson<{ results: StoredConfig[] }>('/api/projects/@current/plugin_configs/')).results.sort((a, b) => a.order - b.order)

const PROPERTY_FILTER = 2
const TAXONOMY = 4
const WEBHOOK = 5
const SECRET_MASK = '**************** POSTHOG SECRET FIELD ****************'

beforeAll(async () => {
  await signIn()
}, 60_000)

describe('plugins in the console', () => {
  it('says no plugin is set up yet, and lists the catalogue', async () => {
    await page.goto(projectUrl('plugins'))
    await page.getByRole('heading', { name: 'Plugins', level: 1 }).waitFor()
    await page.getByText('No plugin is set up in this project yet.').waitFor()
    await page.getByRole('table', { name: 'Plugin catalogue' }).waitFor()
    const catalogue = await rowsOf('Plugin catalogue')
    expect(catalogue.map((row) => row[0])).toEqual(expect.arrayContaining(['Property Filter', 'Taxonomy Plugin', 'Webhook Export']))
    expect(catalogue.find((row) => row[0] === 'Property Filter')?.[1]).toBe(
      'Removes the named properties from every event before it is stored.',
    )
    await checkPage('plugins-empty')
  }, 30_000)

  it('enables the Property Filter with the property to remove, and captured events are stored without it', async () => {
    await page.getByRole('button', { name: 'Enable Property Filter' }).click()
    const dialog = page.getByRole('dialog', { name: 'Enable Property Filter' })
    await dialog.waitFor()
    await dialog.getByLabel('Properties to remove (required)').waitFor()
    await checkPage('plugins-enable-dialog')
    await dialog.getByLabel('Properties to remove (required)').fill('$secret_note')
    await dialog.getByRole('button', { name: 'Enable' }).click()
    await dialog.waitFor({ state: 'hidden' })
    await page.getByRole('table', { name: "This project's plugins" }).waitFor()
    expect((await rowsOf("This project's plugins")).map((row) => row.slice(0, 2))).toEqual([['1', 'Property Filter']])
    expect(await page.getByRole('switch', { name: 'Property Filter enabled' }).isChecked()).toBe(true)
    const [stored] = await configs()
    expect(stored).toMatchObject({ plugin: PROPERTY_FILTER, enabled: true, config: { properties: '$secret_note' } })

    // Captured through the HTTP API (each round a new event, until the new config reaches ingestion).
    let stored_: Record<string, unknown> | undefined
    await waitFor(
      async () => {
        const marker = randomUUID()
        const res = await service.post('/capture/', {
          api_key: account.projectToken,
          event: 'checkout',
          distinct_id: 'plugin-visitor',
          properties: { $secret_note: 'card ends 4242', plan: 'pro', marker },
        })
        expect(res.status).toBe(200)
        stored_ = await waitFor(
          async () => {
            const { results } = await getJson<{ results: { properties: Record<string, unknown> }[] }>(
              '/api/projects/@current/events/?event=checkout&limit=100',
            )
            return results.find((e) => e.properties.marker === marker)?.properties
          },
          { what: 'the captured event stored', timeoutMs: 15_000, intervalMs: 200 },
        )
        return '$secret_note' in stored_ ? undefined : true
      },
      { what: 'the Property Filter to remove $secret_note', timeoutMs: 60_000, intervalMs: 100 },
    )
    expect(stored_).toMatchObject({ plan: 'pro' })
    expect(stored_).not.toHaveProperty('$secret_note')
    await checkPage('plugins-enabled')
  }, 120_000)

  it('configures, moves, switches off and reads the log of plugins', async () => {
    // A second plugin, then the Property Filter's settings opened again from its row.
    await page.getByRole('button', { name: 'Enable Taxonomy Plugin' }).click()
    const enable = page.getByRole('dialog', { name: 'Enable Taxonomy Plugin' })
    expect(await enable.getByLabel('Naming convention (required)').inputValue()).toBe('camelCase')
    await enable.getByLabel('Naming convention (required)').selectOption('snake_case')
    await enable.getByRole('button', { name: 'Enable' }).click()
    await enable.waitFor({ state: 'hidden' })
    await page.getByRole('button', { name: 'Configure Property Filter' }).click()
    const configure = page.getByRole('dialog', { name: 'Configure Property Filter' })
    expect(await configure.getByLabel('Properties to remove (required)').inputValue()).toBe('$secret_note')
    await configure.getByLabel('Properties to remove (required)').fill('$secret_note,$card')
    await configure.getByRole('button', { name: 'Save' }).click()
    await configure.waitFor({ state: 'hidden' })
    await waitFor(async () => ((await configs())[0]?.config.properties === '$secret_note,$card' ? true : undefined), {
      what: 'the new settings saved',
    })

    // The Taxonomy Plugin moved before the Property Filter: the order the service keeps.
    await page.getByRole('button', { name: 'Move Taxonomy Plugin earlier' }).click()
    await waitFor(async () => ((await configs()).map((c) => c.plugin).join() === `${TAXONOMY},${PROPERTY_FILTER}` ? true : undefined), {
      what: 'the new order kept',
    })
    await page
      .getByRole('table', { name: "This project's plugins" })
      .locator('tbody tr')
      .first()
      .getByRole('cell', { name: 'Taxonomy Plugin', exact: true })
      .waitFor()
    expect((await rowsOf("This project's plugins")).map((row) => row.slice(0, 2))).toEqual([
      ['1', 'Taxonomy Plugin'],
      ['2', 'Property Filter'],
    ])
    expect(await page.getByRole('button', { name: 'Move Taxonomy Plugin earlier' }).isDisabled()).toBe(true)

    // Switched off from the keyboard.
    await page.getByRole('switch', { name: 'Taxonomy Plugin enabled' }).focus()
    await page.keyboard.press('Space')
    await waitFor(async () => ((await configs()).find((c) => c.plugin === TAXONOMY)?.enabled === false ? true : undefined), {
      what: 'the plugin switched off',
    })
    // A plugin switched off has no place in the order; the others run as listed.
    await waitFor(
      async () =>
        JSON.stringify((await rowsOf("This project's plugins")).map((row) => row.slice(0, 2))) ===
        JSON.stringify([
          ['1', 'Property Filter'],
          ['off', 'Taxonomy Plugin'],
        ])
          ? true
          : undefined,
      { what: 'the switched-off plugin listed last' },
    )
    expect(await page.getByRole('button', { name: 'Move Property Filter later' }).isDisabled()).toBe(true)

    // The log, newest first, in the service's words.
    await page.getByRole('button', { name: 'Logs of Property Filter' }).click()
    const logs = page.getByRole('dialog', { name: 'Logs of Property Filter' })
    await logs.getByRole('table', { name: 'Log of Property Filter' }).waitFor()
    const messages = (await rowsOf('Log of Property Filter')).map((row) => row[3])
    expect(messages[0]).toBe('Config updated.')
    expect(messages.at(-1)).toBe('Config created (enabled).')
    await checkPage('plugins-logs')
    await page.keyboard.press('Escape')
    await logs.waitFor({ state: 'hidden' })

    // The dark theme and a narrow window.
    await checkDarkAndNarrow('plugins-dark-narrow')
  }, 60_000)
})

describe('a plugin with secrets and jobs in the console', () => {
  it("refuses a bad setting in the service's words, keeps a secret unless replaced, and queues a job", async () => {
    await page.goto(projectUrl('plugins'))
    await page.getByRole('button', { name: 'Enable Webhook Export' }).click()
    const enable = page.getByRole('dialog', { name: 'Enable Webhook Export' })
    await enable.getByLabel('Webhook URL (required)').fill('hooks.example.com/in')
    await enable.getByLabel('Signing secret').fill('s3cret')
    await enable.getByRole('button', { name: 'Enable' }).click()
    expect(await enable.getByRole('alert').textContent()).toBe('Enter a valid http:// or https:// URL.')
    await enable.getByLabel('Webhook URL (required)').fill('https://hooks.example.com/in')
    await enable.getByRole('button', { name: 'Enable' }).click()
    await enable.waitFor({ state: 'hidden' })
    const webhook = async () => (await configs()).find((c) => c.plugin === WEBHOOK)!
    expect((await webhook()).config).toMatchObject({ url: 'https://hooks.example.com/in', secret: SECRET_MASK, method: 'POST' })

    // Opened again, the secret shows only that it is set; saved untouched, it is kept.
    await page.getByRole('button', { name: 'Configure Webhook Export' }).click()
    const configure = page.getByRole('dialog', { name: 'Configure Webhook Export' })
    expect(await configure.getByLabel('Signing secret').inputValue()).toBe('')
    await configure.getByText(/A value is set and kept secret/).waitFor()
    await configure.getByLabel('HTTP method').selectOption('PUT')
    await checkPage('plugins-configure-dialog')
    await configure.getByRole('button', { name: 'Save' }).click()
    await configure.waitFor({ state: 'hidden' })
    await waitFor(async () => ((await webhook()).config.method === 'PUT' ? true : undefined), { what: 'the new method saved' })
    expect((await webhook()).config.secret).toBe(SECRET_MASK)

    // Its historical export, started with the payload fields it declares, is queued and logged.
    await page.getByRole('button', { name: 'Run a job of Webhook Export' }).click()
    const job = page.getByRole('dialog', { name: 'Run a job of Webhook Export' })
    expect(await job.getByLabel('Job', { exact: true }).inputValue()).toBe('Export historical events')
    await job.getByLabel('dateFrom (required)').fill('2026-11-01')
    await job.getByLabel('dateTo (required)').fill('2026-11-02')
    await job.getByRole('button', { name: 'Run job' }).click()
    await job.getByRole('status').filter({ hasText: 'The job is queued' }).waitFor()
    await checkPage('plugins-job-dialog')
    await job.getByRole('button', { name: 'Close' }).click()
    await page.getByRole('button', { name: 'Logs of Webhook Export' }).click()
    const logs = page.getByRole('dialog', { name: 'Logs of Webhook Export' })
    await logs.getByText('Job "Export historical events" enqueued (start).').waitFor()
    await page.keyboard.press('Escape')
  }, 60_000)
})

describe('early access features in the console', () => {
  it('creates a feature that the REST API answers, moves it to another stage and deletes it', async () => {
    await page.goto(projectUrl('early_access_features'))
    await page.getByRole('heading', { name: 'Early access', level: 1 }).waitFor()
    await page.getByText('No early access features yet.').waitFor()
    await checkPage('early-access-empty')

    const form = page.getByRole('form', { name: 'New early access feature' })
    await form.getByLabel('Name').fill('New checkout')
    await form.getByLabel('Description').fill('A one-page checkout')
    await form.getByLabel('Stage').selectOption({ label: 'Beta' })
    await form.getByRole('button', { name: 'Create feature' }).click()
    await page.getByRole('table', { name: 'Early access features' }).waitFor()

    type Feature = { id: string; name: string; description: string; stage: string; feature_flag: { key: string } | null }
    const rest = async () => (await getJson<{ results: Feature[] }>('/api/projects/@current/early_access_feature/')).results
    const [feature] = await rest()
    expect(feature).toMatchObject({ name: 'New checkout', description: 'A one-page checkout', stage: 'beta' })
    const flagKey = feature!.feature_flag!.key
    const [row] = await rowsOf('Early access features')
    expect(row!.slice(0, 2)).toEqual(['New checkout', 'A one-page checkout'])
    expect(row![3]).toBe(flagKey)
    expect(await page.getByLabel('Stage of New checkout').inputValue()).toBe('beta')
    await checkPage('early-access')

    await page.getByLabel('Stage of New checkout').selectOption({ label: 'General availability' })
    await waitFor(async () => ((await rest())[0]?.stage === 'general-availability' ? true : undefined), { what: 'the new stage saved' })

    await page.getByRole('button', { name: 'Delete New checkout' }).click()
    const confirm = page.getByRole('dialog', { name: 'Delete New checkout?' })
    await confirm.waitFor()
    await checkPage('early-access-delete')
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await page.getByText('No early access features yet.').waitFor()
    expect(await rest()).toEqual([])
    // Its flag stays, as the dialog said.
    const flags = await getJson<{ results: { key: string }[] }>('/api/projects/@current/feature_flags/')
    expect(flags.results.map((f) => f.key)).toContain(flagKey)

    await checkDarkAndNarrow('early-access-dark-narrow')
  }, 60_000)
})
