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

/**
 * Every variable's meaning is its `description`, which docs/configuration.md shows (`npm run
 * docs:config` writes it from here; docs.ts lays out its rows). Where the default is no value,
 * `unset` says what an unset variable means; `defaultNote` adds to a value that says too little.
 */
export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000).meta({ description: 'the port to listen on' }),
  HOST: z.string().default('0.0.0.0').meta({ description: 'the address to listen on' }),
  ROLE: z
    .enum(['all', 'ingestion', 'api'])
    .default('all')
    .meta({ description: 'which parts of the service this process runs: `ingestion`, `api` (the private API), or `all` in one process' }),
  DATA_DIR: z.string().default('./.data').meta({
    description: 'embedded PostgreSQL and ClickHouse data, the spool, the admin socket',
    defaultNote: 'in the working directory, the repository root with `npm start`',
  }),
  DATABASE_URL: serverUrl('postgres', 'postgresql').meta({
    description: 'PostgreSQL server URL (`postgres://` or `postgresql://`)',
    unset: 'embedded',
  }),
  CLICKHOUSE_URL: serverUrl('http', 'https').meta({ description: 'ClickHouse server URL (`http://` or `https://`)', unset: 'embedded' }),
  CLICKHOUSE_USER: optionalString.meta({ description: 'the user on the ClickHouse server', unset: '`default`' }),
  CLICKHOUSE_PASSWORD: optionalString.meta({ description: "that user's password", unset: 'empty' }),
  CLICKHOUSE_DATABASE: z.string().default('default').meta({ description: 'the database on the ClickHouse server (created when missing)' }),
  CLICKHOUSE_CLUSTER: optionalString.pipe(z.string().regex(/^\w+$/, 'a cluster name of letters, digits and _').optional()).meta({
    description:
      "a ClickHouse cluster (a name in the servers' `remote_servers`) to lay the tables out on: events split over its shards, every DDL `ON CLUSTER` (see [docs/deploy.md](deploy.md#a-clickhouse-cluster)); without `CLICKHOUSE_URL`, the embedded engine rehearses the layout as a one-shard cluster of itself",
    unset: 'unset',
  }),
  REDIS_URL: serverUrl('redis', 'rediss').meta({
    description:
      "Redis (`redis://` or `rediss://`) for the caches that several instances share (project tokens), with invalidation through pub/sub, and for the rate limits and each project's query slots that they count together",
    unset: 'in process',
  }),
  SITE_URL: optionalUrl.meta({ description: 'base of the absolute `next`/`previous` links', unset: "from the request's Host" }),
  BOOTSTRAP_PERSONAL_API_KEY: optionalString.meta({ description: "the first account's personal API key", unset: 'generated' }),
  BOOTSTRAP_EMAIL: z.email().default('admin@localhost.localdomain').meta({ description: "the first account's user" }),
  BOOTSTRAP_ORGANIZATION: z.string().default('Default organization').meta({ description: "the first account's organization" }),
  BOOTSTRAP_PASSWORD: optionalString.pipe(z.string().min(8, 'must be at least 8 characters').optional()).meta({
    description:
      "the first user's console password, set at the first start where no user has one (8 characters or more); unset, one is generated and printed once on stderr",
    unset: 'generated',
  }),
  CORS_ALLOWED_ORIGINS: commaSeparated(
    (entry) => URL.canParse(entry) && new URL(entry).origin === entry,
    'an origin (scheme://host[:port], nothing after)',
  ).meta({
    description:
      "origins (`https://app.example.com`) whose pages may call `/api` and `/trpc` with the console's session cookie and read the answers, comma-separated; the service's own origin always may, and the SDK endpoints (capture, flags) stay open to all ([docs/console.md](console.md))",
  }),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .meta({ description: 'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`' }),
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(20 * 1024 * 1024)
    .meta({ description: 'larger request bodies get 413 (PostHog: "less than 20 MB")' }),
  MAX_DECOMPRESSED_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(100 * 1024 * 1024)
    .meta({ description: 'bound on a body after decompression, so that a small gzip cannot expand without limit (no gzip bombs)' }),
  BATCH_MAX_ROWS: z.coerce.number().int().positive().default(10_000).meta({ description: 'a ClickHouse insert happens at this many rows' }),
  BATCH_MAX_AGE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(500)
    .meta({ description: 'or once the oldest row of the batch has waited this long' }),
  SPOOL_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024 * 1024)
    .meta({
      description:
        'bound on the on-disk spool of acknowledged events (`DATA_DIR/spool`); beyond it capture answers 503, so that clients retry',
    }),
  SPOOL_SEGMENT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(16 * 1024 * 1024)
    .meta({
      description:
        "size of one spool segment file, created at full size before the next one starts (the spool's files take up to two segments more than `SPOOL_MAX_BYTES`)",
    }),
  SPOOL_WRITES_IN_FLIGHT: z.coerce.number().int().min(1).max(16).default(2).meta({
    description:
      'spool writes (1–16) on their way to disk at once, so that requests arriving during one write need not wait for it; acknowledged in order, so a request never waits for a later one',
  }),
  DISK_RESERVE_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(512 * 1024 * 1024)
    .meta({
      description:
        "free space kept on `DATA_DIR`'s file system (plus one spool segment), so that ClickHouse's merges and the stores never run out; below it capture answers 503 and `/_readyz` says not ready",
    }),
  EVENT_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(36_500)
    .optional()
    .meta({ description: 'events older than this many days are removed by ClickHouse (a TTL on the events table)', unset: 'off' }),
  DEAD_LETTER_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(28).meta({
    description: 'how many days dead letters are kept after they were written (PostHog keeps them four weeks)',
  }),
  PLUGIN_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(7).meta({
    description: 'how many days plugin log entries are kept after their timestamp (PostHog keeps them one week)',
  }),
  GEOIP_DATABASE: optionalString.meta({
    description: 'a MaxMind-format city database (`.mmdb`) for the GeoIP plugin',
    unset: 'the bundled GeoLite2 City',
  }),
  PLUGIN_EVENT_TIMEOUT_MS: z.coerce.number().int().min(1).max(30_000).default(1000).meta({
    description:
      "a transformation's time per event; over it, it counts as failed, its result is discarded and the event is stored as before it",
  }),
  PLUGIN_METRICS_FLUSH_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(20_000)
    .meta({ description: 'how often plugin app metrics (successes, failures) are added to PostgreSQL' }),
  WEBHOOK_RETRY_BASE_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(5_000)
    .meta({ description: "the webhook's first retry wait (each next one doubles it, jittered, up to an hour)" }),
  WEBHOOK_DISABLE_AFTER_S: z.coerce
    .number()
    .int()
    .min(1)
    .default(3 * 24 * 3600)
    .meta({
      description: 'a webhook config whose deliveries keep failing this long (no success since) is disabled, with a SYSTEM log entry',
      defaultNote: '3 days',
    }),
  WEBHOOK_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(120_000)
    .default(10_000)
    .meta({ description: "a webhook request's timeout, response included" }),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4).meta({ description: 'webhook requests in flight per config' }),
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: booleanFromEnv.default(false).meta({
    description:
      'lets webhooks reach private and reserved addresses (localhost, the local network: 10/8, 192.168/16, unique-local IPv6..., link-local and cloud metadata); off, a project member cannot make the server call into its own network: turn it on for endpoints on that network',
  }),
  TEST_PLUGINS: booleanFromEnv
    .default(false)
    .meta({ description: "adds a test-only plugin that fails on request (for the service's own tests)" }),
  MATERIALIZED_PROPERTIES: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((key) => key.trim())
        .filter((key) => key.length > 0),
    )
    .meta({
      description:
        "event properties (comma-separated) kept in columns of their own beside the built-in ones (such as `$current_url` and `$browser`), so that filters on them read a column instead of every event's JSON; a column, once added, stays",
    }),
  CAPTURE_THREADS: z.coerce.number().int().min(0).max(16).default(1).meta({
    description:
      "threads (0–16) that serve HTTP on the port, each with its own event loop and spool lane (`DATA_DIR/spool`, `spool/lane-N`); they answer capture and the SDKs' flag and remote-config requests themselves and pass every other request to the main thread, which stores the events and serves the API. `0`: the main thread serves everything. One keeps capture's loop free of the inserts' work; more pay off only with cores to spare",
  }),
  COHORT_RECALCULATE_AFTER_S: z.coerce.number().int().positive().default(3600).meta({
    description: 'a cohort is calculated again once its last calculation is this old (behaviour windows move on)',
  }),
  COHORT_CHECK_INTERVAL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60_000)
    .meta({ description: 'how often a server looks for cohorts due for calculation' }),
  EVENT_LOOP_SAMPLE_MS: z.coerce.number().int().min(1).max(1000).default(10).meta({
    description:
      "how often (1–1000 ms) the event-loop metrics sample each loop (its delay in wall time, and the CPU time its own work held it); the delay's max is the longest gap between two samples, so it reads at least this much even on an idle loop: lower it to see short stalls",
  }),
  SHUTDOWN_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(30_000)
    .meta({ description: 'how long SIGTERM may take to store what was accepted' }),
  DEPENDENCY_WAIT_MS: z.coerce.number().int().min(0).default(60_000).meta({
    description:
      'how long the start retries, with back-off, a PostgreSQL or ClickHouse server that does not answer yet (a database started alongside takes a while; Redis is never waited for)',
  }),
  POSTGRES_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000).meta({
    description:
      "PostgreSQL's `statement_timeout` for the service's statements (`0`: none): a statement on a server that answers but is too slow is stopped, and its request answers 503",
  }),
  DEPENDENCY_CHECK_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1_000).meta({
    description:
      'how often PostgreSQL, ClickHouse and Redis are checked in the background; `/_readyz` and `/_metrics` read the last result',
  }),
  DEPENDENCY_CHECK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000).meta({
    description: 'a check unanswered this long fails; PostgreSQL calls then fail at once (503) until a check is answered again',
  }),
  QUERY_MAX_EXECUTION_SECONDS: z.coerce.number().int().min(1).max(3600).default(60).meta({
    description:
      "the time limit of an analytics query (`/query/`), all its statements together: each statement's ClickHouse `max_execution_time` is what is left of it ([queries.md](queries.md#limits))",
  }),
  QUERY_CONCURRENCY_PER_PROJECT: z.coerce.number().int().min(1).max(100).default(3).meta({
    description: 'analytics queries of one project computed at once across the servers sharing `REDIS_URL` (PostHog: 3)',
  }),
  QUERY_CONCURRENCY_WAIT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(600_000)
    .default(10_000)
    .meta({ description: "how long an analytics query waits for one of its project's slots before a 429" }),
  QUERY_CACHE_FRESH_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(86_400)
    .default(600)
    .meta({ description: 'a cached analytics answer this young is served without computing it again' }),
  METRICS_TOKEN: optionalString.meta({ description: 'when set, `/_metrics` requires `Authorization: Bearer <token>`', unset: 'none' }),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional().meta({
    description:
      'when set, `/_metrics` and the probes are served on this port (e.g. one that only the monitoring network reaches), and `/_metrics` not on `PORT`',
    unset: 'none',
  }),
  TRUST_PROXY: booleanFromEnv.default(false).meta({
    description:
      'believe `X-Forwarded-For` from every peer: only where no client reaches the port but through the proxy; otherwise name the proxies in `TRUSTED_PROXIES`',
  }),
  TRUSTED_PROXIES: commaSeparated(isAddressOrRange, 'an address or a CIDR range').meta({
    description:
      'addresses and CIDR ranges of the proxies whose `X-Forwarded-For` is believed, comma-separated (see [docs/security.md](security.md))',
  }),
  API_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(480).meta({
    description:
      "the private API's limit a minute per personal API key (PostHog's default), shared through Redis by every instance (0: off)",
  }),
  API_RATE_LIMIT_PER_HOUR: z.coerce.number().int().min(0).default(4_800).meta({ description: 'the same an hour' }),
  QUERY_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(240).meta({
    description: "the same limit a minute for the routes marked `query` (PostHog's default)",
  }),
  QUERY_RATE_LIMIT_PER_HOUR: z.coerce.number().int().min(0).default(2_400).meta({ description: 'the same an hour' }),
  KEY_GUESS_SLOW_AFTER: z.coerce.number().int().min(0).default(20).meta({
    description: 'invalid project or personal API keys from one address in the window past which its answers are delayed',
  }),
  KEY_GUESS_REFUSE_AFTER: z.coerce.number().int().min(1).default(200).meta({
    description: 'past which they are refused (429) until the window ends; valid keys are never held back',
  }),
  KEY_GUESS_WINDOW_S: z.coerce
    .number()
    .int()
    .min(1)
    .max(86_400)
    .default(600)
    .meta({ description: 'the window in which they are counted, in seconds' }),
  CAPTURE_EVENTS_PER_SECOND: z.coerce.number().int().min(0).default(0).meta({
    description:
      "a project's quota of events a second at capture, counted across instances through Redis; over it, 429 with `Retry-After` (nothing of the request acknowledged). `0`: no quota",
    defaultNote: 'off',
  }),
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
