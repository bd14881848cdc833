import type { TestAccount } from '@burrow/testing'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import { useConsoleBrowser } from './consoleBrowser'
import type { TestService } from './service'

/**
 * Members and invites in Debian's Chromium against the real service: an owner invites someone in
 * Settings and hands over the link; the invitee opens it signed out, chooses a name and a
 * password, and lands in the console as a member at the level invited; the link then refuses a
 * second use, and a withdrawn invite leaves the list.
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

const INVITEE = `invitee-${Date.now()}@example.com`
const PASSWORD = 'the invitee chose this'

const cellsOf = (table: string) =>
  page
    .getByRole('table', { name: table, exact: true })
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent?.trim() ?? '')))

async function createInvite(email: string, level: string): Promise<string> {
  await page.goto(projectUrl('settings'))
  await page.getByRole('heading', { name: 'Members' }).waitFor()
  await page.getByRole('form', { name: 'Invite someone' }).getByLabel('Email').fill(email)
  await page.getByLabel('Level').selectOption({ label: level })
  await page.getByRole('button', { name: 'Create invite' }).click()
  return (await page.getByTestId('invite-link').textContent())!.trim()
}

describe('members and invites', () => {
  it('an invitee signs up from the link and joins at the level invited; the link works once', async () => {
    await signIn()
    const link = await createInvite(INVITEE, 'Admin')
    expect(link).toMatch(new RegExp(`^${service.baseUrl}/signup/[0-9a-f-]{36}$`))
    await expect.poll(() => cellsOf('Invites')).toEqual([[INVITEE, 'Admin', link, expect.stringContaining('Withdraw')]])
    expect((await cellsOf('Members')).map((row) => row[2])).toEqual(['Owner'])
    await checkPage('settings-members')

    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in to Burrow' }).waitFor()
    await page.goto(link)
    await page.getByRole('heading', { name: /^Join / }).waitFor()
    await expect.poll(() => page.getByText(INVITEE).count()).toBe(1)
    await checkPage('invite-signup')

    // Too short a password is refused in the service's words, and the link still works.
    await page.getByLabel('First name').fill('Grace')
    const password = page.getByLabel('Password (at least 8 characters)')
    await password.fill('short')
    await password.evaluate((input: HTMLInputElement) => input.removeAttribute('minlength'))
    await page.getByRole('button', { name: 'Join and sign in' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('This password is too short')
    await password.fill(PASSWORD)
    await page.getByRole('button', { name: 'Join and sign in' }).click()
    await page.getByRole('heading', { name: 'Live events' }).waitFor()

    const members = (await (await service.api(account, '/api/organizations/@current/members/')).json()) as Array<Record<string, any>>
    expect(members.find((m) => m.user.email === INVITEE)).toMatchObject({ level: 8, user: { first_name: 'Grace' } })

    // Signed out, the used link says so, with the way back to signing in.
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByRole('heading', { name: 'Sign in to Burrow' }).waitFor()
    await page.goto(link)
    await page.getByRole('heading', { name: 'This invite cannot be used' }).waitFor()
    expect(await page.getByText('The provided invite ID is not valid.').count()).toBe(1)
    await checkPage('invite-used')
  })

  it('a withdrawn invite leaves the list and its link stops working', async () => {
    await signIn()
    const link = await createInvite(`withdrawn-${Date.now()}@example.com`, 'Member')
    page.once('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: /^Withdraw the invite to withdrawn-/ }).click()
    await expect.poll(() => cellsOf('Invites')).toEqual([])
    expect(await page.getByText('No invites waiting.').count()).toBe(1)
    const answer = await fetch(`${service.baseUrl}/api/signup/${link.split('/').pop()}/`)
    expect(answer.status).toBe(400)
  })
})
