/** A request as the HTTP server hands it over: transport-neutral, body fully read. */
export interface HttpRequest {
  method: string
  /** The request's absolute URL as the client addressed it (SITE_URL or Host based). */
  url: URL
  /** Lower-cased header names. */
  headers: Record<string, string>
  body: Buffer
  /** Aborted when the client has gone: a procedure's reads under way are given up. */
  signal?: AbortSignal | undefined
  /** The client's address, where the server knows it (what slows down key guessing counts by). */
  ip?: string | undefined
  /** Whether the client reached the service over HTTPS (itself, or a trusted proxy's X-Forwarded-Proto): its cookies are Secure. */
  secure?: boolean | undefined
}

export interface HttpResponse {
  status: number
  headers: Record<string, string>
  body: string | Buffer
}

export function jsonResponse(status: number, payload: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(payload) }
}

/** The absolute URL of a request: SITE_URL when configured, else the Host it was sent to. */
export function publicUrl(siteUrl: string | undefined, headers: Record<string, string>, pathAndQuery: string): URL {
  if (siteUrl) return new URL(pathAndQuery, siteUrl.endsWith('/') ? siteUrl : `${siteUrl}/`)
  const proto = headers['x-forwarded-proto']?.split(',')[0]?.trim() || 'http'
  const host = headers['x-forwarded-host']?.split(',')[0]?.trim() || headers.host || 'localhost'
  try {
    return new URL(pathAndQuery, `${proto}://${host}`)
  } catch {
    return new URL(pathAndQuery, 'http://localhost')
  }
}
