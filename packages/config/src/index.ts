import { z } from 'zod'

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
  REDIS_URL: serverUrl('redis', 'rediss'),
  SITE_URL: optionalUrl,
  BOOTSTRAP_PERSONAL_API_KEY: optionalString,
  BOOTSTRAP_EMAIL: z.email().default('admin@localhost.localdomain'),
  BOOTSTRAP_ORGANIZATION: z.string().default('Default organization'),
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
  /** When set, /_metrics answers only requests that carry `Authorization: Bearer <token>`. */
  METRICS_TOKEN: optionalString,
  /** When set, /_metrics is served on this port (and not on PORT), e.g. one that only the monitoring network reaches. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  TRUST_PROXY: booleanFromEnv.default(true),
})

/**
 * Rules between settings, each reported under the variable to change. Checked on each
 * variable's own reading, so that they are listed with the problems of unrelated variables.
 */
function inconsistencies(given: Record<string, string | undefined>): string[] {
  const read = <K extends keyof typeof configSchema.shape>(k: K) => configSchema.shape[k].safeParse(given[k]).data
  const [spoolMax, segment] = [read('SPOOL_MAX_BYTES'), read('SPOOL_SEGMENT_BYTES')]
  return spoolMax !== undefined && segment !== undefined && spoolMax < segment
    ? [`SPOOL_MAX_BYTES: must be at least SPOOL_SEGMENT_BYTES (${segment}), or the spool could not hold one segment`]
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
