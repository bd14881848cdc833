import { ApiProblem } from '@burrow/contracts'
import { accounts, consoleAuth, type CoreDeps } from '@burrow/core'
import { unavailableProblem } from './errors'
import type { HttpRequest } from './http'
import { procedurePolicy as policy } from './procedurePolicy'
import { changesState, CSRF_FAILED, CSRF_HEADER, originAllowed, sessionToken } from './session'
import type { ApiContext, ApiGuards } from './trpc'

const BEARER = /^Bearer\s+(\S.+)$/i

/**
 * The personal API key of a request, where PostHog looks for it: the Bearer header first, then
 * a `personal_api_key` field of the JSON body, then `?personal_api_key=`.
 */
export function personalApiKeyFrom(authorization: string | undefined, url: URL, body?: unknown): string | undefined {
  const bearer = authorization ? BEARER.exec(authorization)?.[1]?.trim() : undefined
  const fromBody =
    body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).personal_api_key : undefined
  return bearer || (typeof fromBody === 'string' ? fromBody : undefined) || url.searchParams.get('personal_api_key') || undefined
}

/**
 * The context of a request: the caller of its key, if valid. A key that does not exist counts
 * against the request's address, which is slowed, then refused (429), if it keeps guessing.
 */
export async function createApiContext(
  deps: CoreDeps,
  key: string | undefined,
  options: { guards?: ApiGuards | undefined; ip?: string | undefined } = {},
): Promise<ApiContext> {
  const { guards, ip } = options
  if (!key) return { deps, policy, user: null, keyPresented: false, guards }
  let user
  try {
    user = (await accounts.findCallerByPersonalApiKey(deps.sql, key)) ?? null
  } catch (err) {
    // A store that is down is the procedure's refusal (503), not the context's failure, which tRPC makes a 500.
    const unavailable = unavailableProblem(err)
    if (unavailable) return { deps, policy, user: null, keyPresented: true, guards, refusal: unavailable }
    throw err
  }
  if (!user) {
    try {
      await guards?.keyGuesses?.failed('personal', ip)
    } catch (err) {
      // Thrown by the procedure, as any refusal is: tRPC would make an error of its context a 500.
      if (err instanceof ApiProblem) return { deps, policy, user, keyPresented: true, guards, refusal: err }
      throw err
    }
  }
  return { deps, policy, user, keyPresented: true, guards }
}

/**
 * The context of a request from its credentials: a personal API key wherever PostHog reads one;
 * else the console's session cookie, for a page of the service's own origin (or an allowed one),
 * with the session's CSRF token on every request that changes something.
 */
export async function contextFor(deps: CoreDeps, req: HttpRequest, body: unknown, guards: ApiGuards | undefined): Promise<ApiContext> {
  const key = personalApiKeyFrom(req.headers.authorization, req.url, body)
  const token = key ? undefined : sessionToken(req.headers.cookie)
  if (!token || !originAllowed(req, guards?.sessionOrigins)) return createApiContext(deps, key, { guards, ip: req.ip })
  let session
  try {
    session = await consoleAuth.sessionOf(deps.sql, token)
  } catch (err) {
    const unavailable = unavailableProblem(err)
    if (unavailable) return { deps, policy, user: null, keyPresented: false, guards, refusal: unavailable }
    throw err
  }
  // An ended or expired session is no credential: "not provided", as for a request without one.
  if (!session) return { deps, policy, user: null, keyPresented: false, guards }
  if (changesState(req.method) && !consoleAuth.csrfMatches(req.headers[CSRF_HEADER], session.csrfToken))
    return { deps, policy, user: null, keyPresented: false, guards, refusal: CSRF_FAILED() }
  return { deps, policy, user: session.caller, keyPresented: false, guards }
}
