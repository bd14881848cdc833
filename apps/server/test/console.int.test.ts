import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { waitFor, type TestAccount } from '@burrow/testing'
import type { BrowserContext, Page } from 'playwright-core'
import { PostHog } from 'posthog-node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSOLE_PASSWORD, useConsoleBrowser } from './consoleBrowser'
import type { TestService } from './service'

/**
 * The console in Debian's Chromium against the real service: signing in, Live events fed by
 * posthog-node, Settings, flags, people, signing out, and a page of another origin trying the
 * cookie. Every page is checked with axe-core and photographed into .artifacts/console/ (not
 * committed), and no page may break its Content-Security-Policy.
 */
let service: TestService
let account: TestAccount
let email: string
let context: BrowserContext
let page: Page
let checkPage: (name: string) => Promise<void>
let projectUrl: (page: string) => string
useConsoleBrowser((h) => {
  ;({ service, account, email, context, page, checkPage, projectUrl } = h)
})

describe('the console in Chromium', () => {
  it('signs in with email and password and lands on Live events', async () => {
    await page.goto(`${service.baseUrl}/`)
    await page.getByRole('heading', { name: 'Sign in to Burrow' }).waitFor()
    await checkPage('sign-in')
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill('not the password')
    await page.getByRole('button', { name: 'Sign in' }).click()
    expect(await page.getByRole('alert').textContent()).toBe('Invalid email or password.')
    await checkPage('sign-in-refused')
    await page.getByLabel('Password').fill(CONSOLE_PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Live events' }).waitFor()
    expect(new URL(page.url()).pathname).toBe(`/project/${account.projectId}/events`)
    const cookie = (await context.cookies()).find((c) => c.name === 'burrow_session')!
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' })
    await page.getByText('No events yet').waitFor()
    await checkPage('live-events-empty')
  }, 60_000)

  it('shows an event posthog-node captures without a reload, filters by the URL, and opens its JSON', async () => {
    await page.goto(projectUrl('events'))
    await page.getByRole('heading', { name: 'Live events' }).waitFor()
    const client = new PostHog(account.projectToken, { host: service.baseUrl, flushAt: 1, flushInterval: 0 })
    client.capture({ distinctId: 'console-user', event: 'order placed', properties: { total: 42, plan: 'pro' } })
    client.capture({ distinctId: 'someone-else', event: 'page seen', properties: { plan: 'free' } })
    await client.shutdown()
    // Stored within BATCH_MAX_AGE_MS and shown at the next poll (every second), without a reload;
    // the bound leaves room for a busy test machine.
    await page.getByRole('button', { name: 'order placed' }).waitFor({ timeout: 10_000 })
    await page.getByRole('button', { name: 'page seen' }).waitFor()
    await checkPage('live-events')

    await page.getByLabel('Event name').fill('order placed')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.waitForURL(/event=order/)
    await waitFor(async () => ((await page.getByRole('button', { name: 'page seen' }).count()) === 0 ? true : undefined), {
      what: 'the filtered list',
    })
    // The filters are the URL's: a link to it shows the same list.
    await page.goto(projectUrl('events?property=plan&value=%22free%22'))
    await page.getByRole('button', { name: 'page seen' }).waitFor()
    expect(await page.getByRole('button', { name: 'order placed' }).count()).toBe(0)

    await page.getByRole('button', { name: 'page seen' }).click()
    const dialog = page.getByRole('dialog', { name: 'page seen' })
    await dialog.waitFor()
    const json = JSON.parse((await dialog.getByLabel('The event as JSON').textContent())!) as Record<string, any>
    expect(json).toMatchObject({ event: 'page seen', distinct_id: 'someone-else', properties: { plan: 'free' } })
    await checkPage('live-events-json')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
  }, 60_000)

  it('shows the project token and snippet, and makes a key with scopes shown once, which the API then honours', async () => {
    await page.goto(projectUrl('settings'))
    await page.getByRole('heading', { name: 'Settings' }).waitFor()
    expect(await page.getByTestId('project-token').textContent()).toBe(account.projectToken)
    expect(await page.getByLabel('posthog-js snippet').textContent()).toContain(`${service.baseUrl}/static/array.js`)
    await page.getByLabel('Label').fill('read flags')
    await page.getByLabel('Feature flags access').selectOption('read')
    await page.getByRole('button', { name: 'Create key' }).click()
    const key = (await page.getByTestId('new-key').textContent())!
    expect(key).toMatch(/^phx_/)
    await checkPage('settings')
    const read = await fetch(`${service.baseUrl}/api/projects/${account.projectId}/feature_flags/`, {
      headers: { authorization: `Bearer ${key}` },
    })
    expect(read.status).toBe(200)
    const write = await fetch(`${service.baseUrl}/api/projects/${account.projectId}/feature_flags/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'not-allowed' }),
    })
    expect(write.status).toBe(403)
    // Shown once: after a reload only its mask is there.
    await page.reload()
    await page.getByRole('cell', { name: 'read flags', exact: true }).waitFor()
    expect(await page.getByText(key).count()).toBe(0)
    page.once('dialog', (d) => void d.accept())
    await page.getByRole('button', { name: 'Revoke read flags' }).click()
    await page.getByRole('cell', { name: 'read flags', exact: true }).waitFor({ state: 'detached' })
    expect((await fetch(`${service.baseUrl}/api/users/@me/`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401)
  }, 60_000)

  it('creates a feature flag that /flags/ then answers, and switches it off, which /flags/ then leaves out', async () => {
    await page.goto(projectUrl('feature_flags'))
    await page.getByRole('heading', { name: 'Feature flags' }).waitFor()
    await page.getByLabel('Key').fill('console-flag')
    await page.getByRole('button', { name: 'Create flag' }).click()
    const toggle = page.getByRole('switch', { name: 'console-flag enabled' })
    await toggle.waitFor()
    expect(await toggle.isChecked()).toBe(true)
    await checkPage('feature-flags')
    const flags = async () => {
      const res = await service.post('/flags/?v=2', { api_key: account.projectToken, distinct_id: 'anyone' })
      return ((await res.json()) as { flags: Record<string, { enabled: boolean }> }).flags['console-flag']?.enabled
    }
    await waitFor(async () => ((await flags()) === true ? true : undefined), { what: 'the flag on' })
    await toggle.click()
    await waitFor(async () => ((await toggle.isChecked()) ? undefined : true), { what: 'the switch off' })
    // As PostHog's, the answer leaves out a flag that is switched off.
    await waitFor(async () => ((await flags()) === undefined ? true : undefined), { what: 'the flag left out' })
  }, 60_000)

  it('lists people, and opens the cohorts and plugins pages, each accessible', async () => {
    await page.goto(projectUrl('persons'))
    await page.getByRole('heading', { name: 'People' }).waitFor()
    await page.getByRole('cell', { name: 'console-user' }).first().waitFor({ timeout: 15_000 })
    await checkPage('people')
    for (const [p, title] of [
      ['cohorts', 'Cohorts'],
      ['plugins', 'Plugins'],
    ] as const) {
      await page.goto(projectUrl(p))
      await page.getByRole('heading', { name: title, level: 1 }).waitFor()
      await checkPage(p)
    }
  }, 60_000)

  it('follows the system in dark mode and keeps the toggle’s choice, still accessible', async () => {
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.goto(projectUrl('events'))
    await page.getByRole('heading', { name: 'Live events' }).waitFor()
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor)
    expect(await background()).toBe('rgb(17, 19, 24)')
    await checkPage('live-events-dark')
    await page.getByRole('button', { name: /Theme: system/ }).click()
    expect(await background()).toBe('rgb(255, 255, 255)')
    await page.reload()
    await page.getByRole('heading', { name: 'Live events' }).waitFor()
    expect(await background()).toBe('rgb(255, 255, 255)')
    await page.getByRole('button', { name: /Theme: light/ }).click()
    await page.getByRole('button', { name: /Theme: dark/ }).click()
    await page.emulateMedia({ colorScheme: 'light' })
  }, 60_000)
})

describe('a page of another origin', () => {
  let site: Server
  let siteUrl: string
  beforeAll(async () => {
    // The same host on another port: another origin but the same site, so the browser does send
    // the SameSite=Lax cookie, and only the service's own checks stand in the way.
    site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>other</title>'))
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise((resolve) => site?.close(resolve)))

  it('can neither read /api with the console’s cookie nor change anything with it', async () => {
    const other = await context.newPage()
    await other.goto(siteUrl)
    const outcome = await other.evaluate(
      async (target) => {
        const read = await fetch(`${target.service}/api/users/@me/`, { credentials: 'include' }).then(
          async (r) => `read ${r.status} ${await r.text()}`,
          (e: unknown) => `read refused: ${String(e)}`,
        )
        const trpc = await fetch(`${target.service}/trpc/users.me`, { credentials: 'include' }).then(
          (r) => `trpc ${r.status}`,
          (e: unknown) => `trpc refused: ${String(e)}`,
        )
        // A simple request, which a browser sends without asking first: its answer is opaque, but it arrives.
        await fetch(`${target.service}/api/projects/${target.project}/feature_flags/`, {
          method: 'POST',
          credentials: 'include',
          mode: 'no-cors',
          headers: { 'content-type': 'text/plain' },
          body: JSON.stringify({ key: 'planted-by-another-origin' }),
        }).catch(() => undefined)
        const preflighted = await fetch(`${target.service}/api/projects/${target.project}/feature_flags/`, {
          method: 'POST',
          credentials: 'include',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ key: 'planted-by-another-origin' }),
        }).then(
          (r) => `write ${r.status}`,
          (e: unknown) => `write refused: ${String(e)}`,
        )
        return { read, trpc, preflighted }
      },
      { service: service.baseUrl, project: account.projectId },
    )
    expect(outcome.read).toMatch(/^read refused: TypeError/)
    expect(outcome.trpc).toMatch(/^trpc refused: TypeError/)
    expect(outcome.preflighted).toMatch(/^write refused: TypeError/)
    const flags = await service.api(account, `/api/projects/${account.projectId}/feature_flags/?search=planted`)
    expect(((await flags.json()) as { results: unknown[] }).results).toEqual([])
    await other.close()
  }, 60_000)
})

describe('signing out', () => {
  it('ends the session on the server: the old cookie is refused afterwards', async () => {
    await page.goto(projectUrl('events'))
    await page.getByRole('heading', { name: 'Live events' }).waitFor()
    const cookie = (await context.cookies()).find((c) => c.name === 'burrow_session')!
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in to Burrow' }).waitFor()
    const replayed = await fetch(`${service.baseUrl}/api/users/@me/`, { headers: { cookie: `burrow_session=${cookie.value}` } })
    expect(replayed.status).toBe(401)
    // And the console sends a signed-out visitor to the sign-in page, keeping where they were going.
    await page.goto(projectUrl('settings'))
    await page.getByRole('heading', { name: 'Sign in to Burrow' }).waitFor()
    expect(new URL(page.url()).searchParams.get('next')).toBe(`/project/${account.projectId}/settings`)
  }, 60_000)
})
