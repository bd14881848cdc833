import { isIPv6 } from 'node:net'
import { hash as siphashDouble } from '@posthog/siphash/lib/siphash-double.js'
import { cookielessDays } from '@burrow/core'
import { wallClockFormat } from '@burrow/flags'
import { getDomain } from 'tldts'

/**
 * Cookieless mode as PostHog's ingestion reads it (its "cookieless server hash"): posthog-js
 * with `cookieless_mode` sends no stored id, only the sentinel distinct id and
 * `$cookieless_mode: true`. A project that enables it gets, per visitor and calendar day, the
 * hash of the day's salt, the project, the visitor's address and user agent and the site's root
 * domain as distinct id, and one session a day; the salt is deleted once its day is past, and
 * the address and user agent are not stored.
 */
export const COOKIELESS_SENTINEL = '$posthog_cookieless'
export const COOKIELESS_MODE_PROPERTY = '$cookieless_mode'
export const COOKIELESS_EXTRA_PROPERTY = '$cookieless_extra'

export function isCookieless(distinctId: unknown, properties: unknown): boolean {
  return (
    distinctId === COOKIELESS_SENTINEL ||
    (typeof properties === 'object' && properties !== null && Boolean((properties as Record<string, unknown>)[COOKIELESS_MODE_PROPERTY]))
  )
}

/** The host's registrable domain with its port ("app.example.co.uk:8000" → "example.co.uk:8000"); addresses as they are. */
export function rootDomain(host: string): string {
  if (!host) return host
  if (isIPv6(host)) return `[${host}]`
  let url: URL
  try {
    url = new URL(host.includes('://') ? host : `http://${host}`)
  } catch {
    return host
  }
  let domain = getDomain(url.hostname) ?? url.hostname
  if (domain === 'localhost') domain = '127.0.0.1'
  return url.port ? `${domain}:${url.port}` : domain
}

function uint32sLE(bytes: Buffer): Uint32Array {
  const words = new Uint32Array(bytes.length / 4)
  for (let i = 0; i < words.length; i++) words[i] = bytes.readUInt32LE(i * 4)
  return words
}

function bytesLE(words: Uint32Array): Buffer {
  const bytes = Buffer.alloc(words.length * 4)
  words.forEach((word, i) => bytes.writeUInt32LE(word >>> 0, i * 4))
  return bytes
}

/**
 * The visitor's 16-byte hash: SipHash (double) keyed by the day's salt, over PostHog's input text;
 * `identifies` counts the visitor's earlier identifies (stateful mode), 0 for the base hash.
 */
export function visitorHash(
  salt: Buffer,
  projectId: number,
  ip: string,
  host: string,
  userAgent: string,
  extra = '',
  identifies = 0,
): Buffer {
  const input = `${projectId}-${ip}-${rootDomain(host)}-${userAgent}-${identifies}-${extra.slice(0, 100)}`
  return bytesLE(siphashDouble(uint32sLE(salt), input))
}

const unpadded = (hash: Buffer) => hash.toString('base64').replace(/=+$/, '')
export const cookielessDistinctId = (hash: Buffer) => `cookieless_${unpadded(hash)}`
export const cookielessDeviceId = (hash: Buffer) => `cookielessd_${unpadded(hash)}`

/** The calendar day (YYYY-MM-DD) and its wall-clock offset at an instant in a timezone; undefined for an unknown zone. */
function dayAt(timestampMs: number, timezone: string): { day: string; offsetMs: number } | undefined {
  let format: Intl.DateTimeFormat
  try {
    format = wallClockFormat(timezone)
  } catch {
    return undefined
  }
  const p = Object.fromEntries(format.formatToParts(new Date(timestampMs)).map((part) => [part.type, part.value]))
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second))
  return { day: `${p.year}-${p.month}-${p.day}`, offsetMs: wall - (timestampMs - (timestampMs % 1000)) }
}

/** The event's day: in the timezone the browser sent ($timezone), else the project's, else UTC. */
export function visitDay(
  timestampMs: number,
  eventTimezone: unknown,
  projectTimezone: string | undefined,
): { day: string; startMs: number } {
  const zones = [typeof eventTimezone === 'string' ? eventTimezone : undefined, projectTimezone, 'UTC']
  for (const zone of zones) {
    if (!zone) continue
    const at = dayAt(timestampMs, zone)
    if (at) return { day: at.day, startMs: Date.parse(`${at.day}T00:00:00Z`) - at.offsetMs }
  }
  throw new Error('UTC is always a timezone')
}

/**
 * The stateless session id: a UUIDv7 whose time is the start of the visitor's day and whose
 * random bits are the hash's first bytes, so that every event of a visitor's day shares it.
 */
export function dailySessionId(startOfDayMs: number, hash: Buffer): string {
  const bytes = Buffer.alloc(16)
  bytes.writeUIntBE(Math.max(0, startOfDayMs), 0, 6)
  bytes[6] = 0x70 | (hash[0]! & 0x0f)
  bytes[7] = hash[1]!
  bytes[8] = 0x80 | (hash[2]! & 0x3f)
  hash.copy(bytes, 9, 3, 10)
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/**
 * The salts of the days a cookieless event may be of, kept in this thread and fetched once per
 * day from the store every instance shares; days no longer valid are forgotten.
 */
export class CookielessSalts {
  private readonly salts = new Map<string, Buffer>()

  constructor(private readonly fetch: (day: string) => Promise<string>) {}

  async forNow(nowMs: number): Promise<ReadonlyMap<string, Buffer>> {
    const days = cookielessDays(nowMs)
    for (const day of this.salts.keys()) if (!days.includes(day)) this.salts.delete(day)
    await Promise.all(
      days
        .filter((day) => !this.salts.has(day))
        .map(async (day) => {
          this.salts.set(day, Buffer.from(await this.fetch(day), 'base64'))
        }),
    )
    return this.salts
  }
}
