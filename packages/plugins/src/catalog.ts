import type { Plugin, PluginConfigField } from '@burrow/contracts'
import { downsampling, samplingPercentage, SAMPLING_METHODS } from './transformations/downsampling'
import type { Transformation } from './transformations/event'
import { geoIp, type GeoIpLookup } from './transformations/geoip'
import { propertyFilter } from './transformations/propertyFilter'
import { NAMING_CONVENTIONS, taxonomyStandardizer } from './transformations/taxonomyStandardizer'
import { testFailures } from './transformations/testFailures'
import { validateWebhookConfig } from './webhook/request'

/** What a plugin may need from the server it runs in. */
export interface PluginEnvironment {
  /** The GeoIP database's lookup; throws while it is not open or could not be opened. */
  geoIp(): GeoIpLookup
}

interface CatalogEntry {
  id: number
  name: string
  description: string
  configSchema: PluginConfigField[]
  methods: string[]
  /** Jobs a user may start, with the payload fields each takes. */
  jobs?: Record<string, { payload: Record<string, { type: string; required?: boolean }> }>
  /** Refuses a config the plugin cannot run with (checked when an enabled config is saved). */
  validate?: (config: Record<string, unknown>) => void
  /** The plugin's processEvent for a config. */
  transformation?: (config: Record<string, unknown>, env: PluginEnvironment) => Transformation
  /** Its transformation may change the event it is given (the runner then gives it a copy). */
  changesInPlace?: boolean
  /** The config field of the URL its secrets are sent to: moved to another host, the secrets must be given again. */
  secretsFollowHostOf?: string
}

export const GEOIP = 1
export const WEBHOOK_EXPORT = 5

/**
 * The plugins this service ships. Ids are part of the API (configs refer to them), so an
 * entry keeps its id forever and new plugins take new ids.
 */
const CATALOG: CatalogEntry[] = [
  {
    id: 1,
    name: 'GeoIP',
    description: 'Adds the country, city and coordinates of the IP address to each event.',
    configSchema: [],
    methods: ['processEvent'],
    transformation: (_config, env) => geoIp(() => env.geoIp()),
  },
  {
    id: 2,
    name: 'Property Filter',
    description: 'Removes the named properties from every event before it is stored.',
    configSchema: [
      {
        key: 'properties',
        name: 'Properties to remove',
        type: 'string',
        required: true,
        hint: 'Comma-separated property names; a.b.c removes c inside the object b inside a',
      },
    ],
    methods: ['processEvent'],
    transformation: (config) => propertyFilter(config),
  },
  {
    id: 3,
    name: 'Downsampling Plugin',
    description: 'Keeps only a share of events: all or none of each distinct id, or a random share.',
    configSchema: [
      { key: 'percentage', name: 'Percentage of events to keep', type: 'string', default: '100', required: true, hint: '0 to 100' },
      {
        key: 'samplingMethod',
        name: 'Sampling method',
        type: 'choice',
        choices: [...SAMPLING_METHODS],
        default: SAMPLING_METHODS[0],
      },
    ],
    methods: ['processEvent'],
    validate: (config) => void samplingPercentage(config),
    transformation: (config) => downsampling(config),
  },
  {
    id: 4,
    name: 'Taxonomy Plugin',
    description: 'Renames custom events to one naming convention.',
    configSchema: [
      {
        key: 'defaultNamingConvention',
        name: 'Naming convention',
        type: 'choice',
        choices: [...NAMING_CONVENTIONS],
        default: 'camelCase',
        required: true,
      },
    ],
    methods: ['processEvent'],
    transformation: (config) => taxonomyStandardizer(config),
  },
  {
    id: 5,
    name: 'Webhook Export',
    description: 'Sends each stored event to a URL as JSON, signed with a shared secret, retried until delivered.',
    configSchema: [
      { key: 'url', name: 'Webhook URL', type: 'string', required: true },
      {
        key: 'secret',
        name: 'Signing secret',
        type: 'string',
        secret: true,
        hint: 'Signs each body: X-Burrow-Signature: sha256=<HMAC-SHA256 hex>',
      },
      { key: 'headers', name: 'Extra headers', type: 'json', hint: 'A JSON object of header names and values', secret: true },
      { key: 'method', name: 'HTTP method', type: 'choice', choices: ['POST', 'GET', 'PUT', 'DELETE', 'PATCH'], default: 'POST' },
      {
        key: 'payload',
        name: 'Payload template',
        type: 'json',
        hint: 'JSON; a string "{{event}}" or "{{event.properties.x}}" is replaced by that value. Default: the event.',
      },
      { key: 'events', name: 'Only these events', type: 'string', hint: 'Comma-separated event names; empty sends every event' },
    ],
    methods: ['onEvent'],
    validate: validateWebhookConfig,
    secretsFollowHostOf: 'url',
    jobs: {
      'Export historical events': { payload: { dateFrom: { type: 'date', required: true }, dateTo: { type: 'date', required: true } } },
    },
  },
]

const BY_ID = new Map(CATALOG.map((entry) => [entry.id, entry]))

/** A catalogue entry only tests see (TEST_PLUGINS): it fails, stalls or drops on the events that ask it to. */
const TEST_ENTRY: CatalogEntry = {
  id: 9001,
  name: 'Test Failures',
  description: 'Fails, stalls or drops the events whose $test_plugin property asks for it.',
  configSchema: [],
  methods: ['processEvent'],
  transformation: () => testFailures,
  changesInPlace: true,
}

/** Adds the test-only entry to the catalogue; called at start when TEST_PLUGINS is set. */
export function enableTestPlugins(): void {
  if (BY_ID.has(TEST_ENTRY.id)) return
  CATALOG.push(TEST_ENTRY)
  BY_ID.set(TEST_ENTRY.id, TEST_ENTRY)
}

export function catalogEntry(id: number): CatalogEntry | undefined {
  return BY_ID.get(id)
}

export function toPlugin(entry: CatalogEntry): Plugin {
  return {
    id: entry.id,
    plugin_type: 'local',
    name: entry.name,
    description: entry.description,
    url: `builtin:${entry.name.toLowerCase().replace(/\s+/g, '-')}`,
    icon: null,
    config_schema: entry.configSchema,
    tag: 'builtin',
    latest_tag: 'builtin',
    is_global: true,
    organization_id: null,
    organization_name: null,
    capabilities: { methods: entry.methods, jobs: Object.keys(entry.jobs ?? {}), scheduled_tasks: [] },
    metrics: {},
    public_jobs: entry.jobs ?? {},
  }
}

export function allPlugins(): Plugin[] {
  return CATALOG.map(toPlugin)
}

export type { CatalogEntry }
