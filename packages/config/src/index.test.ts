import { describe, expect, it } from 'vitest'
import { ConfigError, configWith, loadConfig } from './index'

/** The problems loadConfig reports for `env`, or an empty list when it accepts it. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env)
    return []
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    return err.problems
  }
}

/** The variables named by loadConfig's problems for `env`. */
const refused = (env: Record<string, string>) => problemsOf(env).map((p) => p.slice(0, p.indexOf(':')))

describe('loadConfig', () => {
  it('gives every setting its documented default in an empty environment', () => {
    expect(loadConfig({})).toEqual({
      PORT: 8000,
      HOST: '0.0.0.0',
      ROLE: 'all',
      DATA_DIR: './.data',
      CLICKHOUSE_DATABASE: 'default',
      BOOTSTRAP_EMAIL: 'admin@localhost.localdomain',
      BOOTSTRAP_ORGANIZATION: 'Default organization',
      CORS_ALLOWED_ORIGINS: [],
      LOG_LEVEL: 'info',
      MAX_BODY_BYTES: 20 * 1024 * 1024,
      MAX_DECOMPRESSED_BYTES: 100 * 1024 * 1024,
      BATCH_MAX_ROWS: 10_000,
      BATCH_MAX_AGE_MS: 500,
      SPOOL_MAX_BYTES: 1024 * 1024 * 1024,
      SPOOL_SEGMENT_BYTES: 16 * 1024 * 1024,
      SPOOL_WRITES_IN_FLIGHT: 2,
      DISK_RESERVE_BYTES: 512 * 1024 * 1024,
      DEAD_LETTER_RETENTION_DAYS: 28,
      PLUGIN_LOG_RETENTION_DAYS: 7,
      MATERIALIZED_PROPERTIES: [],
      PLUGIN_EVENT_TIMEOUT_MS: 1000,
      PLUGIN_METRICS_FLUSH_MS: 20_000,
      WEBHOOK_RETRY_BASE_MS: 5000,
      WEBHOOK_DISABLE_AFTER_S: 259_200,
      WEBHOOK_TIMEOUT_MS: 10_000,
      WEBHOOK_CONCURRENCY: 4,
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: false,
      TEST_PLUGINS: false,
      CAPTURE_THREADS: 1,
      COHORT_RECALCULATE_AFTER_S: 3600,
      COHORT_CHECK_INTERVAL_MS: 60_000,
      EVENT_LOOP_SAMPLE_MS: 10,
      SHUTDOWN_TIMEOUT_MS: 30_000,
      DEPENDENCY_WAIT_MS: 60_000,
      POSTGRES_STATEMENT_TIMEOUT_MS: 30_000,
      DEPENDENCY_CHECK_INTERVAL_MS: 1_000,
      DEPENDENCY_CHECK_TIMEOUT_MS: 2_000,
      QUERY_MAX_EXECUTION_SECONDS: 60,
      QUERY_CONCURRENCY_PER_PROJECT: 3,
      QUERY_CONCURRENCY_WAIT_MS: 10_000,
      QUERY_CACHE_FRESH_SECONDS: 600,
      API_RATE_LIMIT_PER_MINUTE: 480,
      API_RATE_LIMIT_PER_HOUR: 4_800,
      QUERY_RATE_LIMIT_PER_MINUTE: 240,
      QUERY_RATE_LIMIT_PER_HOUR: 2_400,
      KEY_GUESS_SLOW_AFTER: 20,
      KEY_GUESS_REFUSE_AFTER: 200,
      KEY_GUESS_WINDOW_S: 600,
      CAPTURE_EVENTS_PER_SECOND: 0,
      TRUST_PROXY: false,
      TRUSTED_PROXIES: [],
    })
  })

  it('leaves the servers unset, so that PostgreSQL, ClickHouse and the caches run embedded', () => {
    const config = loadConfig({})
    expect(config.DATABASE_URL).toBeUndefined()
    expect(config.CLICKHOUSE_URL).toBeUndefined()
    expect(config.REDIS_URL).toBeUndefined()
    expect(config.SITE_URL).toBeUndefined()
    expect(config.BOOTSTRAP_PERSONAL_API_KEY).toBeUndefined()
  })

  it('reads numbers from their text, surrounding blanks included', () => {
    const config = loadConfig({ PORT: ' 8080 ', BATCH_MAX_ROWS: '250', MAX_BODY_BYTES: '1048576', CAPTURE_THREADS: '0' })
    expect(config.PORT).toBe(8080)
    expect(config.BATCH_MAX_ROWS).toBe(250)
    expect(config.MAX_BODY_BYTES).toBe(1_048_576)
    expect(config.CAPTURE_THREADS).toBe(0)
  })

  it('accepts port 0, which asks the system for a free port', () => {
    expect(loadConfig({ PORT: '0' }).PORT).toBe(0)
  })

  it('refuses numbers that are not integers or lie outside their range', () => {
    expect(refused({ PORT: 'http' })).toEqual(['PORT'])
    expect(refused({ PORT: '65536' })).toEqual(['PORT'])
    expect(refused({ PORT: '-1' })).toEqual(['PORT'])
    expect(refused({ BATCH_MAX_ROWS: '1.5' })).toEqual(['BATCH_MAX_ROWS'])
    expect(refused({ BATCH_MAX_AGE_MS: '0' })).toEqual(['BATCH_MAX_AGE_MS'])
    expect(refused({ CAPTURE_THREADS: '17' })).toEqual(['CAPTURE_THREADS'])
    expect(refused({ SPOOL_WRITES_IN_FLIGHT: '0' })).toEqual(['SPOOL_WRITES_IN_FLIGHT'])
    expect(refused({ DISK_RESERVE_BYTES: '-1' })).toEqual(['DISK_RESERVE_BYTES'])
    expect(refused({ EVENT_RETENTION_DAYS: '0' })).toEqual(['EVENT_RETENTION_DAYS'])
    expect(refused({ DEAD_LETTER_RETENTION_DAYS: 'a month' })).toEqual(['DEAD_LETTER_RETENTION_DAYS'])
    expect(refused({ EVENT_LOOP_SAMPLE_MS: '1001' })).toEqual(['EVENT_LOOP_SAMPLE_MS'])
  })

  it('takes a ClickHouse cluster name that can be written into DDL as it is, and none when empty', () => {
    expect(loadConfig({ CLICKHOUSE_CLUSTER: 'burrow_2' }).CLICKHOUSE_CLUSTER).toBe('burrow_2')
    expect(loadConfig({ CLICKHOUSE_CLUSTER: ' ' }).CLICKHOUSE_CLUSTER).toBeUndefined()
    expect(refused({ CLICKHOUSE_CLUSTER: 'my cluster' })).toEqual(['CLICKHOUSE_CLUSTER'])
    expect(refused({ CLICKHOUSE_CLUSTER: "x' ON CLUSTER y" })).toEqual(['CLICKHOUSE_CLUSTER'])
  })

  it('reads the usual spellings of a boolean, in any case', () => {
    for (const yes of ['1', 'true', 'yes', 'on', 'TRUE', ' On ']) expect(loadConfig({ TRUST_PROXY: yes }).TRUST_PROXY).toBe(true)
    for (const no of ['0', 'false', 'no', 'off', 'False', 'OFF']) expect(loadConfig({ TRUST_PROXY: no }).TRUST_PROXY).toBe(false)
  })

  it('reads the trusted proxies as a list of addresses and ranges, refusing anything else', () => {
    expect(loadConfig({ TRUSTED_PROXIES: ' 10.0.0.0/8, 127.0.0.1 ,::1,fd00::/8' }).TRUSTED_PROXIES).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'fd00::/8',
    ])
    for (const bad of ['localhost', '10.0.0.0/33', '10.0.0.1/8/8', '::/129'])
      expect(refused({ TRUSTED_PROXIES: bad })).toEqual(['TRUSTED_PROXIES'])
  })

  it('refuses a boolean it cannot read rather than guessing', () => {
    expect(refused({ TRUST_PROXY: 'maybe' })).toEqual(['TRUST_PROXY'])
    expect(refused({ TRUST_PROXY: '2' })).toEqual(['TRUST_PROXY'])
  })

  it('keeps server URLs as given, without the blanks around them', () => {
    const config = loadConfig({
      DATABASE_URL: ' postgres://burrow:secret@db.internal:5432/burrow ',
      CLICKHOUSE_URL: 'http://clickhouse:8123',
      REDIS_URL: 'redis://cache:6379/1',
      SITE_URL: 'https://analytics.example.com',
    })
    expect(config.DATABASE_URL).toBe('postgres://burrow:secret@db.internal:5432/burrow')
    expect(config.CLICKHOUSE_URL).toBe('http://clickhouse:8123')
    expect(config.REDIS_URL).toBe('redis://cache:6379/1')
    expect(config.SITE_URL).toBe('https://analytics.example.com')
  })

  it('refuses a URL that is not one', () => {
    expect(refused({ DATABASE_URL: 'burrow@db.internal/burrow' })).toEqual(['DATABASE_URL'])
    expect(refused({ REDIS_URL: 'not a url' })).toEqual(['REDIS_URL'])
    expect(refused({ SITE_URL: '/relative/path' })).toEqual(['SITE_URL'])
  })

  it('treats a variable set to nothing as unset, so it takes its default', () => {
    const config = loadConfig({
      HOST: ' ',
      TRUST_PROXY: '',
      DATABASE_URL: '',
      REDIS_URL: '  ',
      BATCH_MAX_ROWS: '',
      CLICKHOUSE_USER: '',
    })
    expect(config.HOST).toBe('0.0.0.0')
    expect(config.TRUST_PROXY).toBe(false)
    expect(config.DATABASE_URL).toBeUndefined()
    expect(config.REDIS_URL).toBeUndefined()
    expect(config.BATCH_MAX_ROWS).toBe(10_000)
    expect(config.CLICKHOUSE_USER).toBeUndefined()
  })

  it('refuses a PORT set to nothing, which would listen on the default port unasked', () => {
    for (const blank of ['', '  ']) {
      expect(problemsOf({ PORT: blank })).toEqual(['PORT: is set but empty; give a value or unset it for the default (8000)'])
    }
  })

  it('refuses a spool smaller than one of its segments', () => {
    expect(problemsOf({ SPOOL_MAX_BYTES: '1000000', SPOOL_SEGMENT_BYTES: '2000000' })).toEqual([
      'SPOOL_MAX_BYTES: must be at least SPOOL_SEGMENT_BYTES (2000000), or the spool could not hold one segment',
    ])
    // Against the default segment of 16 MiB too.
    expect(refused({ SPOOL_MAX_BYTES: String(1024 * 1024) })).toEqual(['SPOOL_MAX_BYTES'])
    expect(loadConfig({ SPOOL_MAX_BYTES: '2000000', SPOOL_SEGMENT_BYTES: '2000000' }).SPOOL_MAX_BYTES).toBe(2_000_000)
  })

  it('refuses a server URL whose scheme is not its protocol, naming the schemes it takes and not the rest', () => {
    expect(problemsOf({ DATABASE_URL: 'mysql://root:secret@db/burrow' })).toEqual([
      'DATABASE_URL: must start with postgres:// or postgresql://, not mysql:',
    ])
    expect(problemsOf({ CLICKHOUSE_URL: 'localhost:8123' })).toEqual([
      'CLICKHOUSE_URL: must start with http:// or https://, not localhost:',
    ])
    expect(problemsOf({ REDIS_URL: 'http://cache:6379' })).toEqual(['REDIS_URL: must start with redis:// or rediss://, not http:'])
    const config = loadConfig({
      DATABASE_URL: 'postgresql://db/burrow',
      CLICKHOUSE_URL: 'HTTPS://clickhouse:8443',
      REDIS_URL: 'rediss://cache:6380',
    })
    expect(config).toMatchObject({
      DATABASE_URL: 'postgresql://db/burrow',
      CLICKHOUSE_URL: 'HTTPS://clickhouse:8443',
      REDIS_URL: 'rediss://cache:6380',
    })
  })

  it('lists the start-up checks together with the other problems', () => {
    expect(
      refused({
        PORT: '',
        ROLE: 'worker',
        SPOOL_MAX_BYTES: '10',
        DATABASE_URL: 'mysql://db',
        CLICKHOUSE_URL: 'localhost:8123',
        REDIS_URL: 'memcached://cache',
      }).sort(),
    ).toEqual(['CLICKHOUSE_URL', 'DATABASE_URL', 'PORT', 'REDIS_URL', 'ROLE', 'SPOOL_MAX_BYTES'])
  })

  it('trims the ClickHouse credentials and the bootstrap key', () => {
    const config = loadConfig({ CLICKHOUSE_USER: ' burrow ', CLICKHOUSE_PASSWORD: 'secret ', BOOTSTRAP_PERSONAL_API_KEY: ' phx_abc ' })
    expect(config.CLICKHOUSE_USER).toBe('burrow')
    expect(config.CLICKHOUSE_PASSWORD).toBe('secret')
    expect(config.BOOTSTRAP_PERSONAL_API_KEY).toBe('phx_abc')
  })

  it('accepts only the known roles', () => {
    for (const role of ['all', 'ingestion', 'api'] as const) expect(loadConfig({ ROLE: role }).ROLE).toBe(role)
    expect(refused({ ROLE: 'worker' })).toEqual(['ROLE'])
    expect(refused({ ROLE: 'API' })).toEqual(['ROLE'])
  })

  it('accepts only pino log levels', () => {
    expect(loadConfig({ LOG_LEVEL: 'silent' }).LOG_LEVEL).toBe('silent')
    expect(refused({ LOG_LEVEL: 'verbose' })).toEqual(['LOG_LEVEL'])
  })

  it('refuses a bootstrap email that is not an address', () => {
    expect(loadConfig({ BOOTSTRAP_EMAIL: 'ops@example.com' }).BOOTSTRAP_EMAIL).toBe('ops@example.com')
    expect(refused({ BOOTSTRAP_EMAIL: 'ops' })).toEqual(['BOOTSTRAP_EMAIL'])
  })

  it('takes the origins allowed to use the console session as origins only, and a bootstrap password of 8 characters or more', () => {
    expect(loadConfig({ CORS_ALLOWED_ORIGINS: ' https://app.example.com, http://localhost:3000 ' }).CORS_ALLOWED_ORIGINS).toEqual([
      'https://app.example.com',
      'http://localhost:3000',
    ])
    // A path or a trailing slash would never equal a browser's Origin header: refused rather than silently never matching.
    expect(refused({ CORS_ALLOWED_ORIGINS: 'https://app.example.com/' })).toEqual(['CORS_ALLOWED_ORIGINS'])
    expect(refused({ CORS_ALLOWED_ORIGINS: 'app.example.com' })).toEqual(['CORS_ALLOWED_ORIGINS'])
    expect(loadConfig({ BOOTSTRAP_PASSWORD: 'correct horse' }).BOOTSTRAP_PASSWORD).toBe('correct horse')
    expect(refused({ BOOTSTRAP_PASSWORD: 'short' })).toEqual(['BOOTSTRAP_PASSWORD'])
  })

  it('lists every invalid variable at once', () => {
    const env = { PORT: 'eighty', ROLE: 'worker', DATABASE_URL: 'nope', TRUST_PROXY: 'maybe', CAPTURE_THREADS: '99', HOST: '127.0.0.1' }
    let error: unknown
    try {
      loadConfig(env)
    } catch (err) {
      error = err
    }
    expect(error).toBeInstanceOf(ConfigError)
    const { problems, message, name } = error as ConfigError
    expect(name).toBe('ConfigError')
    expect(problems.map((p) => p.slice(0, p.indexOf(':'))).sort()).toEqual([
      'CAPTURE_THREADS',
      'DATABASE_URL',
      'PORT',
      'ROLE',
      'TRUST_PROXY',
    ])
    for (const problem of problems) expect(problem).toMatch(/^[A-Z_]+: \S/)
    expect(message).toBe(`Invalid configuration:\n  ${problems.join('\n  ')}`)
  })

  it('ignores the variables it does not know', () => {
    const config = loadConfig({ PATH: '/usr/bin', HOME: '/root', PORT: '9000' })
    expect(config.PORT).toBe(9000)
    expect(config).not.toHaveProperty('PATH')
    expect(config).not.toHaveProperty('HOME')
  })
})

describe('configWith', () => {
  it('validates typed overrides as the environment would', () => {
    const config = configWith({ PORT: 0, TRUST_PROXY: false, ROLE: 'ingestion', BATCH_MAX_AGE_MS: 20 })
    expect(config).toMatchObject({ PORT: 0, TRUST_PROXY: false, ROLE: 'ingestion', BATCH_MAX_AGE_MS: 20, HOST: '0.0.0.0' })
    expect(() => configWith({ PORT: 70_000 })).toThrow(ConfigError)
    expect(() => configWith({ BATCH_MAX_ROWS: 0 })).toThrow(/BATCH_MAX_ROWS/)
  })
})
