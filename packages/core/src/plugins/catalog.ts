import type { Plugin, PluginConfigField } from '@burrow/contracts'

interface CatalogEntry {
  id: number
  name: string
  description: string
  configSchema: PluginConfigField[]
  methods: string[]
  /** Jobs a user may start, with the payload fields each takes. */
  jobs?: Record<string, { payload: Record<string, { type: string; required?: boolean }> }>
}

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
  },
  {
    id: 2,
    name: 'Property Filter',
    description: 'Removes the named properties from every event before it is stored.',
    configSchema: [
      { key: 'properties', name: 'Properties to remove', type: 'string', required: true, hint: 'Comma-separated property names' },
    ],
    methods: ['processEvent'],
  },
  {
    id: 3,
    name: 'Downsampling',
    description: 'Keeps only a share of events, chosen consistently by event uuid.',
    configSchema: [{ key: 'percentage', name: 'Percentage of events to keep', type: 'string', default: '100', required: true }],
    methods: ['processEvent'],
  },
  {
    id: 4,
    name: 'Taxonomy Standardizer',
    description: 'Renames custom events to one naming convention.',
    configSchema: [
      {
        key: 'defaultNamingConvention',
        name: 'Naming convention',
        type: 'choice',
        choices: ['camelCase', 'PascalCase', 'snake_case', 'kebab-case', 'spaces in between'],
        default: 'camelCase',
        required: true,
      },
    ],
    methods: ['processEvent'],
  },
  {
    id: 5,
    name: 'Webhook Export',
    description: 'Sends each stored event to a URL as JSON, signed with a shared secret.',
    configSchema: [
      { key: 'url', name: 'Webhook URL', type: 'string', required: true },
      { key: 'secret', name: 'Signing secret', type: 'string', secret: true },
      { key: 'headers', name: 'Extra headers', type: 'json', hint: 'A JSON object of header names and values' },
    ],
    methods: ['onEvent'],
    jobs: {
      'Export historical events': { payload: { dateFrom: { type: 'date', required: true }, dateTo: { type: 'date', required: true } } },
    },
  },
]

const BY_ID = new Map(CATALOG.map((entry) => [entry.id, entry]))

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
