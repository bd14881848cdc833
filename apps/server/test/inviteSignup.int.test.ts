import type { TestAccount } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

/**
 * PostHog's invite sign-up: whoever holds an invite link reads who is invited into what
 * (`GET /api/signup/<id>/`) and, with no account, signs up with a first name and a password
 * (`POST`), which makes them a member at the invite's level and signs them in, as `/api/login/`.
 */
let service: TestService
useTestService((s) => {
  service = s
})

const PASSWORD = 'a password long enough'
const json = async (res: Response) => (await res.json()) as Record<string, any>

async function invite(owner: TestAccount, body: Record<string, unknown>): Promise<string> {
  const res = await service.api(owner, '/api/organizations/@current/invites/', { method: 'POST', body: JSON.stringify(body) })
  expect(res.status).toBe(201)
  return (await json(res)).id as string
}

/** A request as the invite page sends it: no key, no cookie, JSON from the service's own origin. */
const signUp = (id: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${service.baseUrl}/api/signup/${id}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })

const cookieOf = (res: Response) => /burrow_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0]

describe('invite sign-up', () => {
  it('shows the invite, then makes the invitee a member at its level, signed in, and uses the invite up', async () => {
    const owner = await service.account()
    const email = `new-${Date.now()}@Example.COM`
    const id = await invite(owner, { target_email: email, first_name: 'Ada', level: 8 })

    const shown = await fetch(`${service.baseUrl}/api/signup/${id}/`)
    expect(shown.status).toBe(200)
    const { organization } = await json(await service.api(owner, '/api/users/@me/'))
    expect(await json(shown)).toEqual({
      id,
      target_email: email.replace('Example.COM', 'example.com'),
      first_name: 'Ada',
      organization_name: organization.name,
    })

    const created = await signUp(id, { first_name: 'Ada', password: PASSWORD })
    expect(created.status, JSON.stringify(await created.clone().json())).toBe(201)
    const user = await json(created)
    expect(user).toMatchObject({ first_name: 'Ada', email: email.replace('Example.COM', 'example.com'), redirect_url: '/' })
    expect(created.headers.get('set-cookie')).toMatch(/HttpOnly/)
    const cookie = cookieOf(created)!

    // The cookie is a session: the API reads it as the new user, in the owner's organization.
    const me = await fetch(`${service.baseUrl}/api/users/@me/`, { headers: { cookie } })
    expect(me.status).toBe(200)
    expect(await json(me)).toMatchObject({ email: user.email, organization: { id: owner.organizationId } })
    const members = (await json(await service.api(owner, '/api/organizations/@current/members/'))) as unknown as Array<Record<string, any>>
    expect(members.find((m) => m.user.email === user.email)?.level).toBe(8)

    // The password signs in later; the link cannot be used twice.
    const login = await fetch(`${service.baseUrl}/api/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: PASSWORD }),
    })
    expect(login.status).toBe(200)
    const again = await signUp(id, { first_name: 'Eve', password: PASSWORD })
    expect(again.status).toBe(400)
    expect(await json(again)).toMatchObject({ type: 'validation_error', detail: 'The provided invite ID is not valid.' })
    expect(cookieOf(again)).toBeUndefined()
  })

  it('refuses what PostHog refuses, in its words, and signs nobody in', async () => {
    const owner = await service.account()
    const id = await invite(owner, { target_email: `refused-${Date.now()}@example.com` })

    const missing = await signUp(id, { first_name: 'Ada' })
    expect(missing.status).toBe(400)
    expect(await json(missing)).toMatchObject({ attr: 'password', code: 'required', detail: 'This field is required.' })
    const short = await signUp(id, { first_name: 'Ada', password: 'short' })
    expect(short.status).toBe(400)
    expect(await json(short)).toMatchObject({ attr: 'password', code: 'password_too_short' })
    const unknown = await signUp('00000000-0000-4000-8000-000000000000', { first_name: 'Ada', password: PASSWORD })
    expect(unknown.status).toBe(400)
    expect((await json(unknown)).detail).toBe('The provided invite ID is not valid.')
    expect((await fetch(`${service.baseUrl}/api/signup/not-an-id/`)).status).toBe(400)

    // A page of another origin cannot sign up through the link (nor read the answer).
    const foreign = await signUp(id, { first_name: 'Ada', password: PASSWORD }, { origin: 'https://elsewhere.example' })
    expect(foreign.status).toBe(403)
    expect(cookieOf(foreign)).toBeUndefined()

    // An address that already has an account logs in and accepts instead.
    const existing = await service.account()
    const me = await json(await service.api(existing, '/api/users/@me/'))
    const theirs = await invite(owner, { target_email: me.email })
    const taken = await signUp(theirs, { first_name: 'Ada', password: PASSWORD })
    expect(taken.status).toBe(400)
    expect((await json(taken)).detail).toContain('Please log in instead.')
    // …and the invite is still there for them to accept with their key.
    const accepted = await service.api(existing, `/api/signup/${theirs}/`, { method: 'POST' })
    expect(accepted.status).toBe(200)
  })
})
