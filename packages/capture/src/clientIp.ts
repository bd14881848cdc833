import { isIP } from 'node:net'

/**
 * The address an `X-Forwarded-For` entry names: a plain IPv4 or IPv6 address, or one with a port
 * (`203.0.113.9:51234`, `[2001:db8::1]:443`) as some proxies write it; anything else names none.
 */
function addressOf(entry: string): string | undefined {
  const text = entry.trim()
  if (isIP(text)) return text
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text)
  if (bracketed?.[1] && isIP(bracketed[1]) === 6) return bracketed[1]
  const withPort = /^([^:]+):\d{1,5}$/.exec(text)
  if (withPort?.[1] && isIP(withPort[1]) === 4) return withPort[1]
  return undefined
}

/**
 * The client's address: the first `X-Forwarded-For` entry (the client as the first proxy saw
 * it) when proxies are trusted and it is an address, else the peer's. A header holding garbage
 * does not become the event's `$ip`.
 */
export function clientAddress(forwardedFor: string | undefined, peer: string | undefined, trustProxy: boolean): string | undefined {
  const first = trustProxy && forwardedFor ? forwardedFor.split(',', 1)[0] : undefined
  return (first === undefined ? undefined : addressOf(first)) ?? (peer || undefined)
}
