import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { configWith, type Config } from '@burrow/config'
import { clickHouseEnvFor } from './clickhouseMode'

const created: string[] = []

/**
 * Config for a service under test: its own data directory (so its embedded ClickHouse is its
 * own, or a database of its own on the tests' ClickHouse server), an ephemeral port, quiet logs, PostgreSQL and Redis from the environment when given.
 */
export function testConfig(overrides: Partial<Record<keyof Config, string | number | boolean>> = {}): Config {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'burrow-test-'))
  // The embedded PostgreSQL runs as the `postgres` user, which must be able to enter this directory.
  chmodSync(dataDir, 0o755)
  created.push(dataDir)
  const ownDataDir = typeof overrides.DATA_DIR === 'string' ? overrides.DATA_DIR : dataDir
  return configWith({
    PORT: 0,
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    BATCH_MAX_AGE_MS: 100,
    // Test files share one PostgreSQL: a service must not keep recalculating every other file's
    // cohorts (a test of the periodic calculation uses a database of its own and a short period).
    COHORT_RECALCULATE_AFTER_S: 10 * 365 * 24 * 3600,
    // Test files share one Redis and send from one address: the rate limits and the slowing of
    // invalid keys are tested with their own limits (rateLimits.int.test.ts), and are out of the
    // way of the other files, which send many requests with one key and many invalid keys.
    API_RATE_LIMIT_PER_MINUTE: 1_000_000,
    API_RATE_LIMIT_PER_HOUR: 1_000_000,
    KEY_GUESS_SLOW_AFTER: 1_000_000,
    KEY_GUESS_REFUSE_AFTER: 1_000_000,
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...clickHouseEnvFor(ownDataDir),
    ...overrides,
  })
}

export function removeTestDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true })
}
