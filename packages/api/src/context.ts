import { accounts, type CoreDeps } from '@burrow/core'
import type { ApiContext } from './trpc'

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

export async function createApiContext(deps: CoreDeps, key: string | undefined): Promise<ApiContext> {
  if (!key) return { deps, user: null, keyPresented: false }
  const user = (await accounts.findUserByPersonalApiKey(deps.sql, key)) ?? null
  return { deps, user, keyPresented: true }
}
