import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { consoleAuth } from '@burrow/core'
import { users } from '@burrow/postgres'
import type { TestAccount } from '@burrow/testing'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'
import { SERVER_DIR } from './serviceProcess'
import { useTestService, type TestService } from './service'

/**
 * The console in Debian's Chromium against the real service, for a test file of console pages:
 * the service with a signed-up account whose user has a password, one browser page, and a check
 * of each page with axe-core and its Content-Security-Policy, photographed into
 * .artifacts/console/ (not committed).
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ROOT = path.resolve(SERVER_DIR, '..', '..')
const SHOTS = path.join(ROOT, '.artifacts', 'console')
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
export const CONSOLE_PASSWORD = 'console test password'

export interface ConsoleBrowser {
  service: TestService
  account: TestAccount
  email: string
  context: BrowserContext
  page: Page
  /** A page of the account's project, e.g. `projectUrl('events?event=x')`. */
  projectUrl: (page: string) => string
  /** Signs in through the sign-in form; the page lands on Live events. */
  signIn: () => Promise<void>
  /** Photographs the page as `name` and requires no accessibility or CSP violation. */
  checkPage: (name: string) => Promise<void>
  /**
   * checkPage in the dark theme and a phone-wide window, where the page must not scroll
   * sideways; the light theme and the usual window are restored afterwards.
   */
  checkDarkAndNarrow: (name: string) => Promise<void>
  /** The CSP violations the browser reported so far. */
  cspViolations: string[]
}

/**
 * Registers the hooks (build, service, browser) and hands the harness to `ready` once they have
 * run, as useTestService does.
 */
export function useConsoleBrowser(ready: (harness: ConsoleBrowser) => void, overrides: Parameters<typeof useTestService>[1] = {}): void {
  const harness = { cspViolations: [] as string[] } as ConsoleBrowser
  let browser: Browser | undefined

  // Built before the service starts, which reads the built files at start (a no-op when current).
  beforeAll(() => {
    execFileSync(process.execPath, [path.join(ROOT, 'apps/web/scripts/build.mjs')], { stdio: 'inherit' })
  }, 120_000)

  useTestService((s, a) => {
    harness.service = s
    harness.account = a
  }, overrides)

  beforeAll(async () => {
    const { service, account } = harness
    harness.email = (await users.findUserById(service.app.deps.sql, account.userId))!.email
    await consoleAuth.setPassword(service.app.deps.sql, harness.email, CONSOLE_PASSWORD)
    mkdirSync(SHOTS, { recursive: true })
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-sync'],
    })
    harness.context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    harness.page = await harness.context.newPage()
    harness.page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) harness.cspViolations.push(message.text())
    })
    ready(harness)
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
  })

  harness.projectUrl = (p) => `${harness.service.baseUrl}/project/${harness.account.projectId}/${p}`

  harness.signIn = async () => {
    const { page } = harness
    await page.goto(`${harness.service.baseUrl}/login`)
    await page.getByLabel('Email').fill(harness.email)
    await page.getByLabel('Password').fill(CONSOLE_PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('heading', { name: 'Live events' }).waitFor()
  }

  /** axe-core's violations of the page as it stands (WCAG 2 A and AA), as "rule: target" lines. */
  async function accessibilityViolations(): Promise<string[]> {
    const { page } = harness
    // Evaluated through the browser's debugging protocol, which the page's CSP does not govern.
    await page.evaluate(AXE)
    return page.evaluate(async () => {
      const axe = (
        window as unknown as { axe: { run(o: unknown): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }
      ).axe
      const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
      return result.violations.flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`))
    })
  }

  harness.checkPage = async (name) => {
    await harness.page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true })
    expect(await accessibilityViolations(), name).toEqual([])
    expect(harness.cspViolations, name).toEqual([])
  }

  harness.checkDarkAndNarrow = async (name) => {
    const { page } = harness
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.setViewportSize({ width: 390, height: 800 })
    await harness.checkPage(name)
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), name).toBe(true)
    await page.emulateMedia({ colorScheme: 'light' })
    await page.setViewportSize({ width: 1280, height: 800 })
  }
}

/** A table's body rows (the table named by its label) as text: each row's heading, then its cells. */
export function tableRows(page: Page, name: string): Promise<string[][]> {
  return page
    .getByRole('table', { name, exact: true })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent?.trim() ?? '')))
}

/** The insight builder's query, as the page's URL keeps it (`?q=`). */
export const queryInUrlOf = (page: Page): Record<string, unknown> =>
  JSON.parse(new URL(page.url()).searchParams.get('q')!) as Record<string, unknown>
