import { isIP } from 'node:net'
import { z } from 'zod'

/** `10.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`. */
function isAddressOrRange(entry: string): boolean {
  const [address = '', bits, ...rest] = entry.split('/')
  const family = isIP(address)
  if (family === 0 || rest.length > 0) return false
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128))
}

/**
 * The service's settings, parsed once at start-up from the environment. This package is the
 * only reader of process.env; everything else receives the typed object.
 */
const booleanFromEnv = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off']))
  .transform((v) => v === '1' || v === 'true' || v === 'yes' || v === 'on')

const optionalUrl = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .pipe(z.url().optional())
  .optional()

/**
 * A server URL whose scheme names the protocol the client speaks. Without the check,
 * `CLICKHOUSE_URL=localhost:8123` parses as a URL of scheme `localhost:` and
 * `DATABASE_URL=mysql://…` as a URL too, and the service fails later with a connection error
 * far from its cause. Only the scheme is repeated in the message: the rest may hold a password.
 */
const serverUrl = (...schemes: string[]) =>
  optionalUrl.refine(
    // A value that is no URL at all has its own problem already.
    (v) => v === undefined || !URL.canParse(v) || schemes.includes(schemeOf(v)),
    { error: (issue) => `must start with ${schemes.map((s) => `${s}://`).join(' or ')}, not ${schemeOf(String(issue.input))}:` },
  )

const schemeOf = (url: string) => (URL.canParse(url) ? new URL(url).protocol.slice(0, -1).toLowerCase() : '')

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional()

/**
 * A comma-separated list (blanks around entries and empty entries ignored) whose every entry
 * passes `isValid`; each one that does not is its own problem, named by `what` ("an origin").
 */
const commaSeparated = (isValid: (entry: string) => boolean, what: string) =>
  z
    .string()
    .default('')
    .transform((v, ctx) => {
      const entries = v
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '')
      for (const entry of entries.filter((e) => !isValid(e)))
        ctx.issues.push({ code: 'custom', message: `${JSON.stringify(entry)} is not ${what}`, input: v })
      return entries
    })

export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().default('0.0.0.0'),
  /** Which parts of the service this process runs: ingestion, the private API, or both. */
  ROLE: z.enum(['all', 'ingestion', 'api']).default('all'),
  DATA_DIR: z.string().default('./.data'),
  DATABASE_URL: serverUrl('postgres', 'postgresql'),
  CLICKHOUSE_URL: serverUrl('http', 'https'),
  CLICKHOUSE_USER: optionalString,
  CLICKHOUSE_PASSWORD: optionalString,
  CLICKHOUSE_DATABASE: z.string().default('default'),
  /**
   * The ClickHouse cluster (a name in the servers' remote_servers) to lay the tables out on:
   * events split over its shards, every DDL ON CLUSTER. Without CLICKHOUSE_URL, the embedded
   * engine rehearses the layout as a one-shard cluster of itself.
   */
  CLICKHOUSE_CLUSTER: optionalString.pipe(z.string().regex(/^\w+$/, 'a cluster name of letters, digits and _').optional()),
  REDIS_URL: serverUrl('redis', 'rediss'),
  SITE_URL: optionalUrl,
  BOOTSTRAP_PERSONAL_API_KEY: optionalString,
  BOOTSTRAP_EMAIL: z.email().default('admin@localhost.localdomain'),
  BOOTSTRAP_ORGANIZATION: z.string().default('Default organization'),
  /**
   * The console password of the first user, set at the first start where no user has one;
   * unset: one is generated and printed once on stderr. At least 8 characters.
   */
  BOOTSTRAP_PASSWORD: optionalString.pipe(z.string().min(8, 'must be at least 8 characters').optional()),
  /**
   * Origins (`https://app.example.com`, comma-separated) whose pages may call /api and /trpc
   * with the console's session cookie and read the answers. The service's own origin always may;
   * the SDK endpoints (capture, flags) are open to every origin regardless.
   */
  CORS_ALLOWED_ORIGINS: commaSeparated(
    (entry) => URL.canParse(entry) && new URL(entry).origin === entry,
    'an origin (scheme://host[:port], nothing after)',
  ),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Request bodies larger than this are refused with 413 (PostHog: "less than 20 MB"). */
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024),
  /** Bound on a body after decompression, so a small gzip cannot expand without limit. */
  MAX_DECOMPRESSED_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(100 * 1024 * 1024),
  /** A batch goes to ClickHouse when it holds this many rows... */
  BATCH_MAX_ROWS: z.coerce.number().int().positive().default(10_000),
  /** ...or when its oldest row has waited this long. */
  BATCH_MAX_AGE_MS: z.coerce.number().int().positive().default(500),
  /** Bound on the on-disk spool of acknowledged rows; past it, capture answers 503 so clients retry. */
  SPOOL_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024 * 1024),
  /** The spool's segment files are this large before the next one starts. */
  SPOOL_SEGMENT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(16 * 1024 * 1024),
  /** Spool writes on their way to disk at once: requests arriving during one write need not wait for it. */
  SPOOL_WRITES_IN_FLIGHT: z.coerce.number().int().min(1).max(16).default(2),
  /**
   * Free space kept on DATA_DIR's file system: below it (plus a spool segment about to be
   * created) capture answers 503, so that ClickHouse's merges and the stores never run out.
   */
  DISK_RESERVE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(512 * 1024 * 1024),
  /** Events older than this many days are removed by ClickHouse (a TTL on the events table); unset keeps them. */
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).optional(),
  /** Dead letters are removed this many days after they were written (PostHog keeps them four weeks). */
  DEAD_LETTER_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(28),
  /** Plugin log entries are removed this many days after their timestamp (PostHog keeps them one week). */
  PLUGIN_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(7),
  /** A MaxMind-format city database (.mmdb) for the GeoIP plugin; unset: the GeoLite2 City copy shipped with the service. */
  GEOIP_DATABASE: optionalString,
  /** A transformation plugin's time per event; one that takes longer counts as failed and its result is discarded. */
  PLUGIN_EVENT_TIMEOUT_MS: z.coerce.number().int().min(1).max(30_000).default(1000),
  /** How often plugin app metrics (successes, failures) are added to PostgreSQL. */
  PLUGIN_METRICS_FLUSH_MS: z.coerce.number().int().min(100).default(20_000),
  /** The webhook's wait before its first retry; each next one doubles it (with jitter), up to an hour. */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(5_000),
  /** A webhook config whose deliveries keep failing this long (no success since) is disabled. */
  WEBHOOK_DISABLE_AFTER_S: z.coerce
    .number()
    .int()
    .min(1)
    .default(3 * 24 * 3600),
  /** Time allowed for a webhook request, response included. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** Requests in flight at once per webhook config. */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4),
  /**
   * Lets webhooks reach private and reserved addresses (localhost, 10/8, 192.168/16, link-local
   * and cloud metadata, unique-local IPv6...). Off: a project member cannot make the server call
   * into its own network; turn it on for endpoints on that network.
   */
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: booleanFromEnv.default(false),
  /** Adds a test-only plugin that fails on request (for the service's own tests). */
  TEST_PLUGINS: booleanFromEnv.default(false),
  /**
   * Event properties (comma-separated) to keep in columns of their own, beside the built-in hot
   * ones such as $current_url and $browser, so that filters on them read a column instead of
   * every event's JSON. A column, once added, stays.
   */
  MATERIALIZED_PROPERTIES: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((key) => key.trim())
        .filter((key) => key.length > 0),
    ),
  /**
   * Threads that serve HTTP on the port, each with its own event loop, answering capture
   * themselves (each with its own spool lane) and passing every other request to the main
   * thread, which stores the events. 0: the main thread serves everything. One keeps capture's
   * loop free of the inserts' work; more pay off only with cores to spare (see the README).
   */
  CAPTURE_THREADS: z.coerce.number().int().min(0).max(16).default(1),
  /** A cohort is calculated again once its last calculation is this old (behaviour windows move on). */
  COHORT_RECALCULATE_AFTER_S: z.coerce.number().int().positive().default(3600),
  /** How often a server looks for cohorts due for calculation. */
  COHORT_CHECK_INTERVAL_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * How often the event-loop delay metrics sample the loop. Their max is the longest gap between
   * two samples, so it reads at least this much even on an idle loop: lower it to see short stalls.
   */
  EVENT_LOOP_SAMPLE_MS: z.coerce.number().int().min(1).max(1000).default(10),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /**
   * How long the start waits for a PostgreSQL or ClickHouse server that does not answer yet,
   * retrying with back-off, before it gives up (a database started alongside takes a while).
   */
  DEPENDENCY_WAIT_MS: z.coerce.number().int().min(0).default(60_000),
  /**
   * PostgreSQL's statement_timeout for the service's statements (0: none): a statement on a
   * server that answers but is too slow is stopped, and its request answers 503.
   */
  POSTGRES_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * How often PostgreSQL, ClickHouse and Redis are checked in the background; the probes and
   * metrics read the last result. A check unanswered in DEPENDENCY_CHECK_TIMEOUT_MS fails, and
   * PostgreSQL calls then fail at once (503) until a check is answered again.
   */
  DEPENDENCY_CHECK_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
  DEPENDENCY_CHECK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  /** ClickHouse's max_execution_time of each statement of an analytics query (/query/), in seconds. */
  QUERY_MAX_EXECUTION_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** Analytics queries of one project that run at once, across the servers sharing REDIS_URL (PostHog: 3). */
  QUERY_CONCURRENCY_PER_PROJECT: z.coerce.number().int().min(1).max(100).default(3),
  /** How long an analytics query waits for one of its project's slots before a 429. */
  QUERY_CONCURRENCY_WAIT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /** A cached analytics answer this young is served without computing it again. */
  QUERY_CACHE_FRESH_SECONDS: z.coerce.number().int().min(0).max(86_400).default(600),
  /** When set, /_metrics answers only requests that carry `Authorization: Bearer <token>`. */
  METRICS_TOKEN: optionalString,
  /** When set, /_metrics is served on this port (and not on PORT), e.g. one that only the monitoring network reaches. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /**
   * Believe `X-Forwarded-For` from every peer: only for a port no client reaches but through the
   * proxy. Otherwise name the proxies in TRUSTED_PROXIES.
   */
  TRUST_PROXY: booleanFromEnv.default(false),
  /** The proxies whose `X-Forwarded-For` is believed: addresses and CIDR ranges, comma-separated. */
  TRUSTED_PROXIES: commaSeparated(isAddressOrRange, 'an address or a CIDR range'),
  /**
   * The private API's rate limits per personal API key (PostHog's defaults), shared by every
   * instance through Redis; 0 turns one off. QUERY_ limits apply to routes marked `query`.
   */
  API_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(480),
  API_RATE_LIMIT_PER_HOUR: z.coerce.number().int().min(0).default(4_800),
  QUERY_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(240),
  QUERY_RATE_LIMIT_PER_HOUR: z.coerce.number().int().min(0).default(2_400),
  /**
   * Invalid project or personal API keys from one address in KEY_GUESS_WINDOW_S seconds: past
   * KEY_GUESS_SLOW_AFTER each answer is delayed, past KEY_GUESS_REFUSE_AFTER they get 429 until
   * the window ends. Valid keys are never held back.
   */
  KEY_GUESS_SLOW_AFTER: z.coerce.number().int().min(0).default(20),
  KEY_GUESS_REFUSE_AFTER: z.coerce.number().int().min(1).default(200),
  KEY_GUESS_WINDOW_S: z.coerce.number().int().min(1).max(86_400).default(600),
  /**
   * Events a second a project may send, counted across instances through Redis; past it capture
   * answers 429 with Retry-After and acknowledges nothing of the request. 0: no quota.
   */
  CAPTURE_EVENTS_PER_SECOND: z.coerce.number().int().min(0).default(0),
})

/**
 * Rules between settings, each reported under the variable to change. Checked on each
 * variable's own reading, so that they are listed with the problems of unrelated variables.
 */
function inconsistencies(given: Record<string, string | undefined>): string[] {
  const read = <K extends keyof typeof configSchema.shape>(k: K) => configSchema.shape[k].safeParse(given[k]).data
  const [spoolMax, segment] = [read('SPOOL_MAX_BYTES'), read('SPOOL_SEGMENT_BYTES')]
  return spoolMax !== undefined && segment !== undefined && spoolMax < segment
    ? [`SPOOL_MAX_BYTES: must be at least SPOOL_SEGMENT_BYTES (${String(segment)}), or the spool could not hold one segment`]
    : []
}

/**
 * Variables that may not be set to nothing. A blank PORT is a template or env file that lost
 * its value, and listening on the default port instead could take another service's port.
 */
const REQUIRED_WHEN_SET = ['PORT'] as const

export type Config = z.infer<typeof configSchema>

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`)
    this.name = 'ConfigError'
  }
}

/** Parses the environment, listing every problem at once instead of failing on the first. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // A variable set to nothing (`HOST=` in an env file, `HOST: ${HOST}` in a compose file when
  // HOST is unset) means its default, not an empty host; PORT excepted (see REQUIRED_WHEN_SET).
  const blank = Object.keys(env).filter((k) => env[k] !== undefined && env[k].trim() === '')
  const given = Object.fromEntries(Object.entries(env).filter(([k, v]) => v !== undefined && !blank.includes(k)))
  const problems = REQUIRED_WHEN_SET.filter((k) => blank.includes(k)).map(
    (k) => `${k}: is set but empty; give a value or unset it for the default (${String(configSchema.shape[k].parse(undefined))})`,
  )
  const result = configSchema.safeParse(given)
  if (!result.success) problems.push(...result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`))
  problems.push(...inconsistencies(given))
  if (problems.length > 0 || !result.success) throw new ConfigError(problems)
  return result.data
}

/** Config for tests and embedding: defaults plus the given overrides, validated the same way. */
export function configWith(overrides: Partial<Record<keyof Config, string | number | boolean>>): Config {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(overrides)) if (v !== undefined) env[k] = String(v)
  return loadConfig(env)
}
