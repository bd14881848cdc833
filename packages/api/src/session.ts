import { ApiProblem, problems } from '@burrow/contracts'
import { consoleAuth, type CoreDeps } from '@burrow/core'
import { unavailableProblem } from './errors'
import { jsonResponse, type HttpRequest, type HttpResponse } from './http'
import type { ApiGuards } from './trpc'

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

  async function login(req: HttpRequest): Promise<HttpResponse> {
    const origin = req.headers.origin
    if (origin !== undefined && !originAllowed(req, origins)) return problemAnswer(ORIGIN_FAILED(origin))
    // JSON only: a page of another origin cannot send it without a preflight, which only allowed origins pass.
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
      return problemAnswer(problems.parseError('JSON parse error - the request must be sent as application/json.'))
    let body: unknown
    try {
      body = JSON.parse(req.body.toString('utf8'))
    } catch (err) {
      return problemAnswer(problems.parseError(`JSON parse error - ${(err as Error).message}`))
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      return problemAnswer(problems.validation(null, 'Invalid data. Expected a dictionary.'))
    const fields = body as Record<string, unknown>
    const session = await consoleAuth.signIn(
      deps.sql,
      { email: stringField(fields, 'email'), password: stringField(fields, 'password'), address: req.ip },
      guards?.signIn,
    )
    return jsonResponse(
      200,
      { success: true, csrf_token: session.csrfToken },
      {
        'set-cookie': cookie(session.token, { secure: req.secure === true, maxAgeS: consoleAuth.SESSION_LIFETIME_S }),
        'cache-control': 'no-store',
      },
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

  /** The answer for one of these paths, or undefined for any other path. */
  return function answer(req: HttpRequest): Promise<HttpResponse> | undefined {
    const endpoint = ENDPOINTS[req.url.pathname.replace(/\/$/, '')]
    if (!endpoint) return undefined
    if (req.method !== endpoint.method) return Promise.resolve(problemAnswer(problems.methodNotAllowed(req.method)))
    return endpoint.answer(req).catch((err: unknown) => {
      if (err instanceof ApiProblem) return problemAnswer(err)
      const unavailable = unavailableProblem(err)
      if (unavailable) return problemAnswer(unavailable)
      deps.log(`${req.method} ${req.url.pathname} failed`, err)
      return problemAnswer(problems.serverError())
    })
  }
}
