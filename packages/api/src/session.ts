import { ApiProblem, problems } from '@burrow/contracts'
import { consoleAuth, organizationInvites, type CoreDeps } from '@burrow/core'
import { unavailableProblem } from './errors'
import { jsonResponse, type HttpRequest, type HttpResponse } from './http'
import type { ApiGuards } from './trpc'

/** A path segment as its text; one that does not decode names nothing (and is refused as unknown). */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    return ''
  }
}

/** The console's session cookie: HttpOnly (no script reads it), SameSite=Lax, Secure over HTTPS. */
export const SESSION_COOKIE = 'burrow_session'
/** The header the console sends its session's CSRF token in (Django's name, which PostHog's app sends). */
export const CSRF_HEADER = 'x-csrftoken'

/** The session cookie's value in a Cookie header, if any. */
export function sessionToken(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined
  }
  return undefined
}

/** Methods that change nothing: what a cookie may authenticate without a CSRF token. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
export const changesState = (method: string) => !SAFE_METHODS.has(method)

/**
 * Whether a browser request came from a page the session's cookie may serve: the service's own
 * origin (the host the request was sent to, or SITE_URL's), or one of CORS_ALLOWED_ORIGINS. A
 * request without Origin is not a cross-origin browser request (browsers send it on those).
 */
export function originAllowed(req: Pick<HttpRequest, 'headers' | 'url'>, allowed: readonly string[] = []): boolean {
  const origin = req.headers.origin
  if (origin === undefined) return true
  if (origin === req.url.origin || allowed.includes(origin)) return true
  try {
    return new URL(origin).host === req.headers.host
  } catch {
    return false
  }
}

export const CSRF_FAILED = () => problems.permissionDenied('CSRF Failed: CSRF token missing or incorrect.')
const ORIGIN_FAILED = (origin: string) =>
  problems.permissionDenied(`CSRF Failed: Origin checking failed - ${origin} does not match any trusted origins.`)

function cookie(value: string, options: { secure: boolean; maxAgeS: number }): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${options.maxAgeS}`,
    ...(options.secure ? ['Secure'] : []),
  ].join('; ')
}

const problemAnswer = (problem: ApiProblem) => jsonResponse(problem.status, problem.body, { ...problem.headers })

function stringField(body: Record<string, unknown>, name: string): string {
  const value = body[name]
  if (value === undefined || value === null || value === '') throw problems.validation(name, 'This field is required.', 'required')
  if (typeof value !== 'string') throw problems.validation(name, 'Not a valid string.')
  return value
}

/**
 * The console's sign-in, sign-out and session endpoints, at PostHog's paths where it has them:
 * `POST /api/login/` (email and password: the session cookie, and the CSRF token in the body),
 * `POST /api/logout/` (ends the session on the server), `GET /api/session/` (the signed-in
 * session's CSRF token, which a page reloaded needs again).
 */
export function createSessionEndpoints(deps: CoreDeps, guards?: ApiGuards) {
  const origins = guards?.sessionOrigins ?? []

  /** The fields of a sign-in's (or sign-up's) body, from this origin or an allowed one, as JSON only. */
  function formOf(req: HttpRequest): Record<string, unknown> {
    const origin = req.headers.origin
    if (origin !== undefined && !originAllowed(req, origins)) throw ORIGIN_FAILED(origin)
    // JSON only: a page of another origin cannot send it without a preflight, which only allowed origins pass.
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
      throw problems.parseError('JSON parse error - the request must be sent as application/json.')
    let body: unknown
    try {
      body = JSON.parse(req.body.toString('utf8'))
    } catch (err) {
      throw problems.parseError(`JSON parse error - ${(err as Error).message}`)
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw problems.validation(null, 'Invalid data. Expected a dictionary.')
    return body as Record<string, unknown>
  }

  const sessionCookie = (req: HttpRequest, session: consoleAuth.NewSession) => ({
    'set-cookie': cookie(session.token, { secure: req.secure === true, maxAgeS: consoleAuth.SESSION_LIFETIME_S }),
    'cache-control': 'no-store',
  })

  async function login(req: HttpRequest): Promise<HttpResponse> {
    const fields = formOf(req)
    const session = await consoleAuth.signIn(
      deps.sql,
      { email: stringField(fields, 'email'), password: stringField(fields, 'password'), address: req.ip },
      guards?.signIn,
    )
    return jsonResponse(200, { success: true, csrf_token: session.csrfToken }, sessionCookie(req, session))
  }

  /** `GET /api/signup/<invite id>/`: the invite as its page shows it, to anyone holding the link. */
  async function describeInvite(_req: HttpRequest, inviteId: string): Promise<HttpResponse> {
    return jsonResponse(200, await organizationInvites.describeInvite(deps, inviteId), { 'cache-control': 'no-store' })
  }

  /**
   * `POST /api/signup/<invite id>/` without a key or session: a new user from the invite, signed in
   * as `/api/login/` signs in. An unknown or expired invite counts as a failed guess of the
   * address, as a wrong password does; one invite's tries are bounded as one account's.
   */
  async function signUpByInvite(req: HttpRequest, inviteId: string): Promise<HttpResponse> {
    const fields = formOf(req)
    const firstName = stringField(fields, 'first_name')
    if (firstName.length > 128) throw problems.validation('first_name', 'Ensure this field has no more than 128 characters.')
    const password = stringField(fields, 'password')
    const account = `invite:${inviteId.slice(0, 64)}`
    await guards?.signIn?.admit(account)
    let user
    try {
      user = await organizationInvites.signUpByInvite(deps, inviteId, { firstName, password })
    } catch (err) {
      if (err instanceof ApiProblem && err.status === 400 && err.body.attr === null) await guards?.signIn?.failed(account, req.ip)
      throw err
    }
    const session = await consoleAuth.openSession(deps.sql, user)
    return jsonResponse(
      201,
      {
        id: user.id,
        uuid: user.uuid,
        distinct_id: user.distinct_id,
        first_name: user.first_name,
        last_name: user.last_name,
        email: user.email,
        is_email_verified: false,
        redirect_url: '/',
        csrf_token: session.csrfToken,
      },
      sessionCookie(req, session),
    )
  }

  async function logout(req: HttpRequest): Promise<HttpResponse> {
    const token = sessionToken(req.headers.cookie)
    const cleared = { 'set-cookie': cookie('', { secure: req.secure === true, maxAgeS: 0 }) }
    if (!token) return jsonResponse(200, { success: true }, cleared)
    if (!originAllowed(req, origins)) return problemAnswer(ORIGIN_FAILED(req.headers.origin ?? ''))
    const session = await consoleAuth.sessionOf(deps.sql, token)
    // Only the page holding the session's token may end it: another site cannot sign a person out.
    if (session && !consoleAuth.csrfMatches(req.headers[CSRF_HEADER], session.csrfToken)) return problemAnswer(CSRF_FAILED())
    await consoleAuth.signOut(deps.sql, token)
    return jsonResponse(200, { success: true }, cleared)
  }

  async function current(req: HttpRequest): Promise<HttpResponse> {
    const token = sessionToken(req.headers.cookie)
    const session = token && originAllowed(req, origins) ? await consoleAuth.sessionOf(deps.sql, token) : undefined
    if (!session) return problemAnswer(problems.notAuthenticated())
    return jsonResponse(
      200,
      { csrf_token: session.csrfToken, user: { id: session.caller.id, email: session.caller.email } },
      { 'cache-control': 'no-store' },
    )
  }

  const ENDPOINTS: Record<string, { method: string; answer: (req: HttpRequest) => Promise<HttpResponse> }> = {
    '/api/login': { method: 'POST', answer: login },
    '/api/logout': { method: 'POST', answer: logout },
    '/api/session': { method: 'GET', answer: current },
  }

  /**
   * The invite sign-up's answer: reading an invite, or signing up with it when the request carries
   * no key and no session. A signed-in user (key or session) accepts it through the API's route.
   */
  function inviteEndpoint(req: HttpRequest, inviteId: string): Promise<HttpResponse> | undefined {
    if (req.method === 'GET') return describeInvite(req, inviteId)
    if (req.method !== 'POST') return Promise.resolve(problemAnswer(problems.methodNotAllowed(req.method)))
    if (req.headers.authorization !== undefined || sessionToken(req.headers.cookie) !== undefined) return undefined
    return signUpByInvite(req, inviteId)
  }

  /** The answer for one of these paths, or undefined for any other path. */
  return function answer(req: HttpRequest): Promise<HttpResponse> | undefined {
    const path = req.url.pathname.replace(/\/$/, '')
    const invite = /^\/api\/signup\/([^/]+)$/.exec(path)
    const endpoint = ENDPOINTS[path]
    let answered: Promise<HttpResponse> | undefined
    if (invite) answered = inviteEndpoint(req, decodedSegment(invite[1]!))
    else if (!endpoint) return undefined
    else if (req.method !== endpoint.method) return Promise.resolve(problemAnswer(problems.methodNotAllowed(req.method)))
    else answered = endpoint.answer(req)
    return answered?.catch((err: unknown) => {
      if (err instanceof ApiProblem) return problemAnswer(err)
      const unavailable = unavailableProblem(err)
      if (unavailable) return problemAnswer(unavailable)
      deps.log(`${req.method} ${req.url.pathname} failed`, err)
      return problemAnswer(problems.serverError())
    })
  }
}
