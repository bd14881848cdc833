import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { gunzip } from 'node:zlib'
import { promisify } from 'node:util'
import { Reader, type CityResponse } from 'maxmind'
import type { PluginEvent, Transformation } from './event'

/** Looks up an IP address; undefined when the database does not know it. */
export type GeoIpLookup = (ip: string) => CityResponse | null | undefined

/** The GeoIP keys PostHog sets; the ones not found are null rather than absent. */
const DEFAULT_KEYS = [
  'city_name',
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

function locationOf(found: CityResponse): Record<string, unknown> {
  const location: Record<string, unknown> = Object.fromEntries(DEFAULT_KEYS.map((k) => [k, null]))
  location.city_name = found.city?.names.en ?? null
  location.country_name = found.country?.names.en ?? null
  location.country_code = found.country?.iso_code ?? null
  location.continent_name = found.continent?.names.en ?? null
  location.continent_code = found.continent?.code ?? null
  location.postal_code = found.postal?.code ?? null
  location.latitude = found.location?.latitude ?? null
  location.longitude = found.location?.longitude ?? null
  location.accuracy_radius = found.location?.accuracy_radius ?? null
  location.time_zone = found.location?.time_zone ?? null
  for (const [i, subdivision] of (found.subdivisions ?? []).entries()) {
    location[`subdivision_${i + 1}_code`] = subdivision.iso_code ?? null
    location[`subdivision_${i + 1}_name`] = subdivision.names.en ?? null
  }
  return location
}

/** Addresses whose keys a GeoIP config keeps (a few MB); the oldest looked up go first. */
const KNOWN_ADDRESSES = 50_000

/** Key–value pairs, kept as lists: adding them to each event then takes no Object.keys of its own. */
type Entries = ReadonlyArray<readonly [key: string, value: unknown]>

/** An address's keys: `$geoip_*` (for the properties and `$set`) and `$initial_geoip_*` (for `$set_once`). */
interface GeoIpKeys {
  current: Entries
  initial: Entries
}

function geoIpKeys(location: Record<string, unknown>): GeoIpKeys {
  const entries = Object.entries(location)
  return {
    current: entries.map(([key, value]) => [`$geoip_${key}`, value] as const),
    initial: entries.map(([key, value]) => [`$initial_geoip_${key}`, value] as const),
  }
}

/**
 * `given` with the keys of `defaults` it does not have, added in place when it is an object (the
 * event's own, decoded from its row, as the properties themselves are), else a new object of
 * `defaults`. Added in place rather than copied: a copy is one more object per event for the
 * collector, and an object built key by key past some 16 keys turns into a dictionary, which
 * JSON.stringify writes more slowly when the row is encoded. A key named `__proto__` in `given`
 * stays an ordinary own key (JSON.parse makes it one; nothing here assigns it).
 */
function withMissing(given: unknown, defaults: Entries): Record<string, unknown> {
  const merged = isObject(given) ? given : {}
  for (const [key, value] of defaults) if (!Object.hasOwn(merged, key)) merged[key] = value
  return merged
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * PostHog's GeoIP: the location of `$ip` as `$geoip_*` properties, the same keys in `$set` and
 * as `$initial_geoip_*` in `$set_once`; what the event already sets wins. `$geoip_disable` skips it.
 * A database that could not be opened makes every event fail (logged, stored unchanged).
 */
export function geoIp(lookup: () => GeoIpLookup): Transformation {
  // The same addresses come back event after event (a user's session): their keys are kept.
  const known = new Map<string, GeoIpKeys | null>()
  return (event: PluginEvent) => {
    const ip = event.properties.$ip
    if (event.properties.$geoip_disable === true || typeof ip !== 'string' || ip === '') return event
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
    properties.$set = withMissing(properties.$set, keys.current)
    properties.$set_once = withMissing(properties.$set_once, keys.initial)
    return event
  }
}
