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
  DATABASE_URL: optionalUrl,
  CLICKHOUSE_URL: optionalUrl,
  CLICKHOUSE_USER: optionalString,
  CLICKHOUSE_PASSWORD: optionalString,
  CLICKHOUSE_DATABASE: z.string().default('default'),
  REDIS_URL: optionalUrl,
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

export type Config = z.infer<typeof configSchema>

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`)
    this.name = 'ConfigError'
  }
}

/** Parses the environment, listing every problem at once instead of failing on the first. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // A variable set to nothing (`PORT=` in an env file, `PORT: ${PORT}` in a compose file when
  // PORT is unset) means its default, not port 0 or an empty host.
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v.trim() !== ''))
  const result = configSchema.safeParse(given)
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`))
  }
  return result.data
}

/** Config for tests and embedding: defaults plus the given overrides, validated the same way. */
export function configWith(overrides: Partial<Record<keyof Config, string | number | boolean>>): Config {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(overrides)) if (v !== undefined) env[k] = String(v)
  return loadConfig(env)
}
