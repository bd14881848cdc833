import type { AppRouter } from '@burrow/api'
import { createTRPCClient, httpBatchLink, TRPCClientError } from '@trpc/client'

/** The header the console sends its session's CSRF token in (Django's name, which PostHog's app sends). */
export const CSRF_HEADER = 'x-csrftoken'

/**
 * The session's CSRF token: given by the sign-in, asked of `/api/session/` after a reload (only
 * this origin's pages can read it). Kept in memory, never in storage another script could read later.
 */
let csrf: Promise<string | undefined> | undefined

function rememberCsrf(token: string | undefined): void {
  csrf = token === undefined ? undefined : Promise.resolve(token)
}

async function csrfToken(): Promise<string | undefined> {
  csrf ??= fetch('/api/session/', { credentials: 'same-origin' })
    .then(async (res) => (res.ok ? ((await res.json()) as { csrf_token?: string }).csrf_token : undefined))
    .catch(() => undefined)
  const token = await csrf
  if (token === undefined) csrf = undefined
  return token
}

async function csrfHeaders(): Promise<Record<string, string>> {
  const token = await csrfToken()
  return token ? { [CSRF_HEADER]: token } : {}
}

/** The procedures, typed by the service's own router: a renamed field is a compile error here. */
export const trpc = createTRPCClient<AppRouter>({
  links: [
    httpBatchLink({
      url: '/trpc',
      // Reads need no token: only a batch with a change asks for it.
      headers: ({ opList }) => (opList.some((op) => op.type === 'mutation') ? csrfHeaders() : {}),
      fetch: (url, init) => fetch(url, { ...init, credentials: 'same-origin' }),
    }),
  ],
})

/** PostHog's error body, as the REST side and tRPC's `data.problem` carry it. */
export interface Problem {
  type: string
  code: string
  detail: string
  attr: string | null
}

/** A REST call's refusal, with the service's own words. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
  ) {
    super(problem?.detail ?? `The service answered ${status}.`)
    this.name = 'ApiError'
  }
}

function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && typeof (value as Problem).detail === 'string'
}

/** A REST call of the service, with the session's cookie and CSRF token; the parsed JSON answer. */
export async function rest<T>(method: string, path: string, body?: unknown, options: { csrf?: boolean } = {}): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'GET' || options.csrf === false ? {} : await csrfHeaders()),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = undefined
  }
  if (!response.ok) throw new ApiError(response.status, isProblem(parsed) ? parsed : undefined)
  return parsed as T
}

/** The HTTP status of a failed call, REST or tRPC. */
export function statusOf(error: unknown): number | undefined {
  if (error instanceof ApiError) return error.status
  if (error instanceof TRPCClientError) {
    const data = (error as TRPCClientError<AppRouter>).data as { httpStatus?: number } | undefined
    return data?.httpStatus
  }
  return undefined
}

/** What to tell a person of a failed call: the service's own words where it gave them. */
export function errorWords(error: unknown): string {
  if (error instanceof ApiError) return error.message
  if (error instanceof TRPCClientError) {
    const problem = ((error as TRPCClientError<AppRouter>).data as { problem?: unknown } | undefined)?.problem
    if (isProblem(problem)) return problem.detail
    return error.message
  }
  if (error instanceof TypeError) return 'The service could not be reached. Check that it is running, then try again.'
  return error instanceof Error ? error.message : String(error)
}

export async function signIn(email: string, password: string): Promise<void> {
  rememberCsrf(undefined)
  const answer = await rest<{ success: true; csrf_token: string }>('POST', '/api/login/', { email, password }, { csrf: false })
  rememberCsrf(answer.csrf_token)
}

/** An invite as its link's page shows it (`GET /api/signup/<id>/`). */
export interface InviteSummary {
  id: string
  target_email: string
  first_name: string
  organization_name: string
}

/** Signs up with an invite's link: a new member, signed in as `signIn` signs in. */
export async function signUpByInvite(inviteId: string, firstName: string, password: string): Promise<void> {
  rememberCsrf(undefined)
  const answer = await rest<{ csrf_token: string }>(
    'POST',
    `/api/signup/${encodeURIComponent(inviteId)}/`,
    { first_name: firstName, password },
    { csrf: false },
  )
  rememberCsrf(answer.csrf_token)
}

export async function signOut(): Promise<void> {
  await rest<{ success: true }>('POST', '/api/logout/')
  rememberCsrf(undefined)
}
