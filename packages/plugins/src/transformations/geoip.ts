import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { gunzip } from 'node:zlib'
import { promisify } from 'node:util'
import { Reader, type CityResponse } from 'maxmind'
import type { PluginEvent, Transformation } from './event'

/** Looks up an IP address; undefined when the database does not know it. */
export type GeoIpLookup = (ip: string) => CityResponse | null | undefined

/**
 * The keys PostHog's GeoIP writes as null into `$set` and `$set_once` before the ones it found,
 * so that a location without them clears what the person had (the event's properties get only
 * the keys found).
 */
const NULL_FILLED_KEYS = [
  'city_name',
  'city_confidence',
  'subdivision_2_name',
  'subdivision_2_code',
  'subdivision_1_name',
  'subdivision_1_code',
  'country_name',
  'country_code',
  'continent_name',
  'continent_code',
  'postal_code',
  'latitude',
  'longitude',
  'accuracy_radius',
  'time_zone',
] as const

/**
 * Decoded records kept: decoding a city record (names in every language) takes some 100 µs,
 * and the addresses of a region share a few records, so that a cache of them makes a lookup a
 * walk down the search tree.
 */
const DECODED_RECORDS = 20_000

/** The reader's cache of decoded records by their offset: the oldest written goes first when full. */
class BoundedCache {
  private readonly entries = new Map<number, unknown>()
  constructor(private readonly max: number) {}
  get(key: number): unknown {
    return this.entries.get(key)
  }
  set(key: number, value: unknown): void {
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(key, value)
  }
}

/**
 * The MaxMind-format city database: GEOIP_DATABASE when set, else the GeoLite2 City copy the
 * `geolite2-city` package ships (gzipped, opened in memory: nothing is downloaded).
 */
export async function openGeoIpDatabase(file: string | undefined): Promise<GeoIpLookup> {
  let bytes: Buffer
  if (file) {
    bytes = await readFile(file)
  } else {
    const bundled = createRequire(import.meta.url).resolve('geolite2-city/GeoLite2-City.mmdb.gz')
    bytes = await promisify(gunzip)(await readFile(bundled))
  }
  const reader = new Reader<CityResponse>(bytes, { cache: new BoundedCache(DECODED_RECORDS) })
  return (ip) => {
    try {
      return reader.get(ip)
    } catch {
      // Not an address: nothing to add, as for an address the database does not know.
      return undefined
    }
  }
}

/**
 * The location's keys in the order PostHog writes them: those of each part the database has for
 * the address (a name in English, a code), the confidences only where the database holds them
 * (MaxMind's paid databases). A part present without one of its values gives that key as
 * undefined: PostHog then writes no value for it, not even the null it filled in.
 */
function locationOf(found: CityResponse): Array<[key: string, value: unknown]> {
  const location: Array<[string, unknown]> = []
  const confidence = (key: string, record: { confidence?: number }) => {
    if (typeof record.confidence === 'number') location.push([key, record.confidence])
  }
  if (found.city) {
    location.push(['city_name', found.city.names?.en])
    confidence('city_confidence', found.city)
  }
  if (found.country) {
    location.push(['country_name', found.country.names?.en], ['country_code', found.country.iso_code])
    confidence('country_confidence', found.country)
  }
  if (found.continent) location.push(['continent_name', found.continent.names?.en], ['continent_code', found.continent.code])
  if (found.postal) {
    location.push(['postal_code', found.postal.code])
    confidence('postal_code_confidence', found.postal)
  }
  if (found.location) {
    const { latitude, longitude, accuracy_radius, time_zone } = found.location
    location.push(['latitude', latitude], ['longitude', longitude], ['accuracy_radius', accuracy_radius], ['time_zone', time_zone])
  }
  for (const [i, subdivision] of (found.subdivisions ?? []).entries()) {
    location.push([`subdivision_${i + 1}_code`, subdivision.iso_code], [`subdivision_${i + 1}_name`, subdivision.names?.en])
    confidence(`subdivision_${i + 1}_confidence`, subdivision)
  }
  return location
}

/** Addresses whose keys a GeoIP config keeps (a few MB); the oldest looked up go first. */
const KNOWN_ADDRESSES = 50_000

/** Key–value pairs, kept as lists: adding them to each event then takes no Object.keys of its own. */
type Entries = ReadonlyArray<readonly [key: string, value: unknown]>

/** What GeoIP adds for one address, each with its prefix. */
interface GeoIpKeys {
  /** The `$geoip_*` keys found with a value: into the properties and `$set`. */
  current: Entries
  /** The same as `$initial_geoip_*`, into `$set_once`. */
  initial: Entries
  /** The null-filled keys the location does not name: null in `$set` and `$set_once`. */
  currentNulls: readonly string[]
  initialNulls: readonly string[]
}

function geoIpKeys(location: Array<[string, unknown]>): GeoIpKeys {
  const named = new Set(location.map(([key]) => key))
  const found = location.filter(([, value]) => value !== undefined)
  const unnamed = NULL_FILLED_KEYS.filter((key) => !named.has(key))
  return {
    current: found.map(([key, value]) => [`$geoip_${key}`, value] as const),
    initial: found.map(([key, value]) => [`$initial_geoip_${key}`, value] as const),
    currentNulls: unnamed.map((key) => `$geoip_${key}`),
    initialNulls: unnamed.map((key) => `$initial_geoip_${key}`),
  }
}

/**
 * `given` with the keys it does not have: those of `found`, and null for `nulls`. Added in place
 * when it is an object (the event's own, decoded from its row, as the properties themselves
 * are), else into a new object. Added in place rather than copied: a copy is one more object per
 * event for the collector, and an object built key by key past some 16 keys turns into a
 * dictionary, which JSON.stringify writes more slowly when the row is encoded. A key named
 * `__proto__` in `given` stays an ordinary own key (JSON.parse makes it one; nothing here assigns it).
 */
function withMissing(given: unknown, found: Entries, nulls: readonly string[]): Record<string, unknown> {
  const merged = isObject(given) ? given : {}
  for (const [key, value] of found) if (!Object.hasOwn(merged, key)) merged[key] = value
  for (const key of nulls) if (!Object.hasOwn(merged, key)) merged[key] = null
  return merged
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * PostHog's GeoIP: the location of `$ip` as `$geoip_*` properties, the same keys in `$set` and
 * as `$initial_geoip_*` in `$set_once`; what the event already sets wins. A truthy
 * `$geoip_disable` skips it. A database that could not be opened makes every event fail
 * (logged, stored unchanged).
 */
export function geoIp(lookup: () => GeoIpLookup): Transformation {
  // The same addresses come back event after event (a user's session): their keys are kept.
  const known = new Map<string, GeoIpKeys | null>()
  return (event: PluginEvent) => {
    const given = event.properties.$ip
    // PostHog reads the address as text: a number is an address in its decimal form; the text
    // of any other value is no address.
    const ip = typeof given === 'string' ? given : typeof given === 'number' ? String(given) : ''
    if (event.properties.$geoip_disable || !ip) return event
    let keys = known.get(ip)
    if (keys === undefined) {
      const found = lookup()(ip)
      keys = found ? geoIpKeys(locationOf(found)) : null
      if (known.size >= KNOWN_ADDRESSES) known.delete(known.keys().next().value!)
      known.set(ip, keys)
    }
    if (!keys) return event
    const properties = event.properties
    for (const [key, value] of keys.current) if (!(key in properties)) properties[key] = value
    properties.$set = withMissing(properties.$set, keys.current, keys.currentNulls)
    properties.$set_once = withMissing(properties.$set_once, keys.initial, keys.initialNulls)
    return event
  }
}
