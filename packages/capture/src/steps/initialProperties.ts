import { isJsonObject } from '@burrow/contracts'
import { persons } from '@burrow/core'

/**
 * The event properties PostHog copies to the person (its `eventToPersonProperties`): device,
 * screen and page properties of the web and mobile libraries, then the campaign parameters
 * posthog-js reads from the URL.
 */
export const PERSON_INITIAL_PROPERTIES: readonly string[] = [
  '$app_build',
  '$app_name',
  '$app_namespace',
  '$app_version',
  '$browser',
  '$browser_version',
  '$device_type',
  '$current_url',
  '$pathname',
  '$os',
  '$os_name',
  '$os_version',
  '$referring_domain',
  '$referrer',
  '$screen_height',
  '$screen_width',
  '$viewport_height',
  '$viewport_width',
  '$raw_user_agent',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_name',
  'utm_term',
  'gclid',
  'gad_source',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'twclid',
  'li_fat_id',
  'mc_cid',
  'igshid',
  'ttclid',
  'rdt_cid',
  'irclid',
  '_kx',
  'epik',
  'qclid',
  'sccid',
]

/**
 * Whether a `$set` value of an event other than a person event updates the person only along with
 * another change (PostHog's filtered person update properties).
 */
export const isSoftPersonProperty = (key: string): boolean => persons.isFilteredPersonUpdateProperty(key)

/** `$browser` → `$initial_browser`, `utm_source` → `$initial_utm_source`. */
const INITIAL_KEYS: ReadonlyArray<readonly [string, string]> = PERSON_INITIAL_PROPERTIES.map((key) => [
  key,
  `$initial_${key.replace('$', '')}`,
])

/**
 * Copies the event's person-initial properties into `$set` (the latest value) and, as
 * `$initial_*`, into `$set_once` (the first value), as PostHog does for every event:
 * - the client's own `$set` and `$set_once` values for the same keys win;
 * - a null never goes into `$set_once`, where it would hold the place of the first real value;
 * - server libraries (`$is_server: true`) describe their host, so their `$os` is not the person's;
 * - `$os_name`, which some libraries send instead of `$os`, stands in for `$initial_os` only.
 */
export function addInitialAndUtmProperties(properties: Record<string, unknown>): void {
  const serverHost = properties.$is_server === true
  let set: Record<string, unknown> | undefined
  let setOnce: Record<string, unknown> | undefined
  for (const [key, initialKey] of INITIAL_KEYS) {
    // JSON holds no undefined: an undefined value is a key the event does not have.
    const value = properties[key]
    if (value === undefined) continue
    if (serverHost && (key === '$os' || key === '$os_version')) continue
    set ??= copyOf(properties.$set)
    setOnce ??= copyOf(properties.$set_once)
    if (!Object.hasOwn(set, key)) set[key] = value
    if (value !== null && !Object.hasOwn(setOnce, initialKey)) setOnce[initialKey] = value
  }
  if (!set || !setOnce) return
  const osName = properties.$os_name
  if (osName !== undefined && !serverHost) {
    if (osName !== null && !Object.hasOwn(setOnce, '$initial_os')) setOnce.$initial_os = osName
    delete set.$os_name
    delete setOnce.$initial_os_name
  }
  properties.$set = set
  properties.$set_once = setOnce
}

/** A copy of the client's `$set` or `$set_once` (anything else counts as empty); `__proto__` stays an ordinary key. */
function copyOf(value: unknown): Record<string, unknown> {
  const copy: Record<string, unknown> = {}
  if (!isJsonObject(value)) return copy
  for (const key of Object.keys(value)) {
    if (key === '__proto__') Object.defineProperty(copy, key, { value: value[key], enumerable: true, writable: true, configurable: true })
    else copy[key] = value[key]
  }
  return copy
}
