import { consoleAuth } from '@burrow/core'
import { users } from '@burrow/postgres'
import type { TestAccount } from '@burrow/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

/**
 * The console's sign-in over HTTP, as a browser's requests carry it: the session cookie, the
 * CSRF token, the Origin header. The browser itself is in console.int.test.ts.
 */
const ALLOWED = 'http://allowed.example'
const FOREIGN = 'http://foreign.example'
const PASSWORD = 'a long enough password'

let service: TestService
let account: TestAccount
let email: string
useTestService(
  (s, a) => {
    service = s
    account = a
  },
  { CORS_ALLOWED_ORIGINS: ALLOWED },
)

beforeAll(async () => {
  email = (await users.findUserById(service.app.deps.sql, account.userId))!.email
  await consoleAuth.setPassword(service.app.deps.sql, email, PASSWORD)
})

interface Session {
  cookie: string
  csrf: string
  setCookie: string
}

async function signIn(as = email, password = PASSWORD, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${service.baseUrl}/api/login/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ email: as, password }),
  })
}

async function session(): Promise<Session> {
  const res = await signIn()
  expect(res.status).toBe(200)
  const setCookie = res.headers.get('set-cookie')!
  const body = (await res.json()) as { success: boolean; csrf_token: string }
  expect(body.success).toBe(true)
  return { cookie: setCookie.split(';')[0]!, csrf: body.csrf_token, setCookie }
}

const call = (path: string, s: Session, init: RequestInit & { headers?: Record<string, string> } = {}) =>
  fetch(`${service.baseUrl}${path}`, { ...init, headers: { cookie: s.cookie, ...init.headers } })

describe('signing in to the console', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie (not Secure over plain HTTP) that authenticates REST and tRPC', async () => {
    const s = await session()
    expect(s.setCookie).toMatch(/^burrow_session=[\w-]{40,}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/)
    const me = await call('/api/users/@me/', s)
    expect(me.status).toBe(200)
    expect(((await me.json()) as { email: string }).email).toBe(email)
    const trpc = await call('/trpc/users.me', s)
    expect(trpc.status).toBe(200)
    expect(((await trpc.json()) as { result: { data: { email: string } } }).result.data.email).toBe(email)
    // A reloaded page asks for its CSRF token again.
    const current = await call('/api/session/', s)
    expect(await current.json()).toMatchObject({ csrf_token: s.csrf, user: { email } })
  })

  it("refuses a wrong password and an unknown email alike, in PostHog's words, and sets no cookie", async () => {
    for (const res of [await signIn(email, 'not the password'), await signIn('nobody@example.com', PASSWORD)]) {
      expect(res.status).toBe(400)
      expect(res.headers.get('set-cookie')).toBeNull()
      expect(await res.json()).toEqual({
        type: 'validation_error',
        code: 'invalid_credentials',
        detail: 'Invalid email or password.',
        attr: null,
      })
    }
    const missing = await fetch(`${service.baseUrl}/api/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ code: 'required', attr: 'email' })
  })

  it('changes nothing with the cookie alone: a write needs the session’s CSRF token', async () => {
    const s = await session()
    const flag = (headers: Record<string, string>) =>
      call(`/api/projects/${account.projectId}/feature_flags/`, s, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ key: `csrf-${Math.random().toString(36).slice(2)}` }),
      })
    for (const headers of [{}, { 'x-csrftoken': 'guessed' }] as Record<string, string>[]) {
      const refused = await flag(headers)
      expect(refused.status).toBe(403)
      expect(await refused.json()).toMatchObject({ code: 'permission_denied', detail: 'CSRF Failed: CSRF token missing or incorrect.' })
    }
    expect((await flag({ 'x-csrftoken': s.csrf })).status).toBe(201)
    // tRPC's mutations too.
    const mutation = await call('/trpc/personalApiKeys.create', s, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'no token', scopes: ['*'] }),
    })
    expect(mutation.status).toBe(403)
  })

  it('ends the session on the server at sign-out: the old cookie is refused afterwards', async () => {
    const s = await session()
    expect((await call('/api/users/@me/', s)).status).toBe(200)
    // Without its token, another site cannot sign the person out.
    expect((await call('/api/logout/', s, { method: 'POST' })).status).toBe(403)
    const out = await call('/api/logout/', s, { method: 'POST', headers: { 'x-csrftoken': s.csrf } })
    expect(out.status).toBe(200)
    expect(out.headers.get('set-cookie')).toMatch(/^burrow_session=; .*Max-Age=0/)
    const after = await call('/api/users/@me/', s)
    expect(after.status).toBe(401)
    expect(await after.json()).toMatchObject({ code: 'not_authenticated' })
    expect((await call('/api/session/', s)).status).toBe(401)
  })

  it('keeps personal API keys working beside sessions, and tells whether the user has a password', async () => {
    const res = await service.api(account, '/api/users/@me/')
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ email, has_password: true })
    const other = await service.account()
    expect(await (await service.api(other, '/api/users/@me/')).json()).toMatchObject({ has_password: false })
  })
})

describe('other origins', () => {
  it("give a page of another origin neither the cookie's reads nor its writes, nor the CORS headers to read an answer", async () => {
    const s = await session()
    const read = await call('/api/users/@me/', s, { headers: { origin: FOREIGN } })
    expect(read.status).toBe(401)
    expect(read.headers.get('access-control-allow-origin')).toBeNull()
    const preflight = await fetch(`${service.baseUrl}/api/users/@me/`, {
      method: 'OPTIONS',
      headers: { origin: FOREIGN, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'content-type, x-csrftoken' },
    })
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull()
    const write = await call(`/api/projects/${account.projectId}/feature_flags/`, s, {
      method: 'POST',
      headers: { origin: FOREIGN, 'content-type': 'application/json', 'x-csrftoken': s.csrf },
      body: JSON.stringify({ key: 'from-another-origin' }),
    })
    expect(write.status).toBe(401)
    const login = await signIn(email, PASSWORD, { origin: FOREIGN })
    expect(login.status).toBe(403)
    expect(login.headers.get('set-cookie')).toBeNull()
  })

  it('let an origin of CORS_ALLOWED_ORIGINS call with credentials and read the answer', async () => {
    const s = await session()
    const preflight = await fetch(`${service.baseUrl}/trpc/users.me`, {
      method: 'OPTIONS',
      headers: { origin: ALLOWED, 'access-control-request-method': 'GET' },
    })
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED)
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true')
    const read = await call('/api/users/@me/', s, { headers: { origin: ALLOWED } })
    expect(read.status).toBe(200)
    expect(read.headers.get('access-control-allow-origin')).toBe(ALLOWED)
  })

  it('leave the SDK endpoints open to every origin, as PostHog does', async () => {
    const res = await fetch(`${service.baseUrl}/flags/?v=2`, {
      method: 'POST',
      headers: { origin: FOREIGN, 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: account.projectToken, distinct_id: 'someone' }),
    })
    expect(res.status).toBe(200)
    expect(res.headers.get('access-control-allow-origin')).toBe(FOREIGN)
  })
})

describe('password guessing', () => {
  it('refuses an account after 10 failed sign-ins in its window, even with the right password', async () => {
    const victim = await service.account()
    const victimEmail = (await users.findUserById(service.app.deps.sql, victim.userId))!.email
    await consoleAuth.setPassword(service.app.deps.sql, victimEmail, PASSWORD)
    for (let i = 0; i < 10; i++) expect((await signIn(victimEmail, `guess ${i}`)).status).toBe(400)
    const refused = await signIn(victimEmail, PASSWORD)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('900')
    expect(await refused.json()).toMatchObject({ type: 'throttled_error', code: 'throttled' })
    // Other accounts are not affected.
    expect((await signIn()).status).toBe(200)
  })

  it('stores no password in plain text, and a new password signs out every session of the user', async () => {
    const s = await session()
    const [row] = await service.app.deps.sql<{ hash: string }[]>`select hash from user_passwords where user_id = ${account.userId}`
    expect(row!.hash).toMatch(/^\$argon2id\$/)
    expect(row!.hash).not.toContain(PASSWORD)
    await consoleAuth.setPassword(service.app.deps.sql, email, PASSWORD)
    expect((await call('/api/users/@me/', s)).status).toBe(401)
  })
})
