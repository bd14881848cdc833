// docs/configuration.md, generated from the schema so that the two cannot drift: each variable's
// meaning is its schema's description, its default what the schema gives when it is unset.
// `npm run docs:config` writes the file; docs.test.ts fails while the committed one differs.
import { configSchema, type Config } from './index'

type Variable = keyof Config

/**
 * The table's rows, in order: variables read together share a row. Every variable is in exactly
 * one row (configurationDoc throws otherwise), so a new one cannot be left out of the page.
 */
const ROWS: Variable[][] = [
  ['PORT', 'HOST'],
  ['ROLE'],
  ['DATA_DIR'],
  ['DATABASE_URL'],
  ['CLICKHOUSE_URL'],
  ['CLICKHOUSE_USER', 'CLICKHOUSE_PASSWORD', 'CLICKHOUSE_DATABASE'],
  ['CLICKHOUSE_CLUSTER'],
  ['REDIS_URL'],
  ['SITE_URL'],
  ['BOOTSTRAP_EMAIL'],
  ['BOOTSTRAP_ORGANIZATION'],
  ['BOOTSTRAP_PERSONAL_API_KEY'],
  ['BOOTSTRAP_PASSWORD'],
  ['CORS_ALLOWED_ORIGINS'],
  ['MAX_BODY_BYTES'],
  ['MAX_DECOMPRESSED_BYTES'],
  ['BATCH_MAX_ROWS', 'BATCH_MAX_AGE_MS'],
  ['SPOOL_MAX_BYTES'],
  ['SPOOL_SEGMENT_BYTES'],
  ['CAPTURE_THREADS'],
  ['DISK_RESERVE_BYTES'],
  ['EVENT_RETENTION_DAYS'],
  ['DEAD_LETTER_RETENTION_DAYS', 'PLUGIN_LOG_RETENTION_DAYS'],
  ['SPOOL_WRITES_IN_FLIGHT'],
  ['EVENT_LOOP_SAMPLE_MS'],
  ['SHUTDOWN_TIMEOUT_MS'],
  ['DEPENDENCY_WAIT_MS'],
  ['DEPENDENCY_CHECK_INTERVAL_MS'],
  ['DEPENDENCY_CHECK_TIMEOUT_MS'],
  ['POSTGRES_STATEMENT_TIMEOUT_MS'],
  ['METRICS_TOKEN'],
  ['METRICS_PORT'],
  ['COHORT_RECALCULATE_AFTER_S'],
  ['COHORT_CHECK_INTERVAL_MS'],
  ['GEOIP_DATABASE'],
  ['PLUGIN_EVENT_TIMEOUT_MS'],
  ['WEBHOOK_RETRY_BASE_MS', 'WEBHOOK_TIMEOUT_MS', 'WEBHOOK_CONCURRENCY'],
  ['WEBHOOK_ALLOW_PRIVATE_ADDRESSES'],
  ['WEBHOOK_DISABLE_AFTER_S'],
  ['API_RATE_LIMIT_PER_MINUTE', 'API_RATE_LIMIT_PER_HOUR'],
  ['QUERY_RATE_LIMIT_PER_MINUTE', 'QUERY_RATE_LIMIT_PER_HOUR'],
  ['KEY_GUESS_SLOW_AFTER', 'KEY_GUESS_REFUSE_AFTER', 'KEY_GUESS_WINDOW_S'],
  ['CAPTURE_EVENTS_PER_SECOND'],
  ['TRUSTED_PROXIES'],
  ['TRUST_PROXY'],
  ['LOG_LEVEL'],
  ['MATERIALIZED_PROPERTIES'],
  ['PLUGIN_METRICS_FLUSH_MS'],
  ['QUERY_MAX_EXECUTION_SECONDS'],
  ['QUERY_CONCURRENCY_PER_PROJECT', 'QUERY_CONCURRENCY_WAIT_MS'],
  ['QUERY_CACHE_FRESH_SECONDS'],
  ['TEST_PLUGINS'],
]

const INTRO = `# Configuration

<!-- Generated from packages/config's schema by \`npm run docs:config\`: change a variable's description there, not here. -->

Every environment variable the service reads, parsed and checked once at start (every problem is
listed at once). A variable set to an empty value takes its default, except \`PORT\`, which is refused then (see
[operations.md](operations.md#starting-configuration-checks)).

The README lists the handful most installations set; this is the whole list.
`

/** What the schema's metadata says of one variable (see configSchema). */
interface VariableDoc {
  description: string
  unset?: string
  defaultNote?: string
}

function docOf(variable: Variable): VariableDoc {
  const meta = configSchema.shape[variable].meta() ?? {}
  const text = (key: string) => (typeof meta[key] === 'string' ? meta[key] : undefined)
  const description = text('description')
  if (description === undefined) throw new Error(`${variable} has no description in packages/config's schema`)
  const unset = text('unset')
  const defaultNote = text('defaultNote')
  return { description, ...(unset !== undefined ? { unset } : {}), ...(defaultNote !== undefined ? { defaultNote } : {}) }
}

const MiB = 1024 * 1024

/** The value an unset variable takes, as the page shows it. */
function shownDefault(variable: Variable): string {
  const { unset, defaultNote } = docOf(variable)
  if (unset !== undefined) return unset
  const value: unknown = configSchema.shape[variable].parse(undefined)
  let shown: string
  if (value === undefined) throw new Error(`${variable} has no default: its schema's metadata must say what unset means (\`unset\`)`)
  else if (Array.isArray(value) && value.length === 0) shown = '(none)'
  else if (typeof value === 'number' && variable.endsWith('_BYTES') && value % MiB === 0)
    shown = value % (1024 * MiB) === 0 ? `${String(value / (1024 * MiB))} GiB` : `${String(value / MiB)} MiB`
  else if (typeof value === 'number') shown = String(value)
  else if (typeof value === 'string' || typeof value === 'boolean') shown = `\`${String(value)}\``
  else throw new Error(`${variable}: no way to show a default of ${JSON.stringify(value)}`)
  return defaultNote === undefined ? shown : `${shown} (${defaultNote})`
}

function cell(text: string): string {
  if (/[|\n]/.test(text)) throw new Error(`a table cell cannot hold "|" or a line break: ${text}`)
  return text
}

/** docs/configuration.md as the schema describes it. */
export function configurationDoc(): string {
  const listed = ROWS.flat()
  const twice = listed.filter((v, i) => listed.indexOf(v) !== i)
  const missing = Object.keys(configSchema.shape).filter((v) => !listed.includes(v as Variable))
  if (twice.length > 0 || missing.length > 0)
    throw new Error(
      `every variable takes one row of ROWS in packages/config/src/docs.ts; twice: ${twice.join(', ')}; missing: ${missing.join(', ')}`,
    )
  const rows = ROWS.map((row) =>
    [row.map((v) => `\`${v}\``).join(' / '), row.map(shownDefault).join(' / '), row.map((v) => docOf(v).description).join('; ')].map(cell),
  )
  return `${INTRO}
<!-- prettier-ignore -->
| Variable | Default | Meaning |
|---|---|---|
${rows.map((columns) => `| ${columns.join(' | ')} |`).join('\n')}
`
}
