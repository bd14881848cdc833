import { accounts, type CoreDeps } from '@burrow/core'
import type { ApiContext } from './trpc'

const BEARER = /^Bearer\s+(\S.+)$/i

/** The personal API key of a request: the Bearer header first, then `?personal_api_key=`. */
export function personalApiKeyFrom(authorization: string | undefined, url: URL): string | undefined {
  const bearer = authorization ? BEARER.exec(authorization)?.[1]?.trim() : undefined
  return bearer || url.searchParams.get('personal_api_key') || undefined
}

export async function createApiContext(deps: CoreDeps, key: string | undefined): Promise<ApiContext> {
  if (!key) return { deps, user: null, keyPresented: false }
  const user = (await accounts.findUserByPersonalApiKey(deps.sql, key)) ?? null
  return { deps, user, keyPresented: true }
}
