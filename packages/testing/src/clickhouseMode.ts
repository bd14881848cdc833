import { createHash } from 'node:crypto'
import path from 'node:path'

/**
 * The ClickHouse the integration tests run against. `embedded`: each service's own chDB under
 * its DATA_DIR (the default). `server`: the server at CLICKHOUSE_URL (the stand-in that
 * `TEST_CLICKHOUSE=standin` starts for the run, or a real server), where each DATA_DIR gets a
 * database of its own, so that a test sees the same isolation in both modes. In embedded mode,
 * CLICKHOUSE_CLUSTER (which `TEST_CLICKHOUSE=cluster` sets) lays the tables out for a cluster,
 * the embedded engine being its one shard: reads and writes go through Distributed tables.
 */
export function clickHouseMode(): 'server' | 'embedded' {
  return process.env.CLICKHOUSE_URL ? 'server' : 'embedded'
}

/** The server's database for the service whose data lives in `dataDir`. */
export function clickHouseDatabaseFor(dataDir: string): string {
  return `burrow_test_${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16)}`
}

/** The ClickHouse variables of a service whose data lives in `dataDir`: none in embedded mode. */
export function clickHouseEnvFor(dataDir: string): Record<string, string> {
  const url = process.env.CLICKHOUSE_URL
  if (!url) return process.env.CLICKHOUSE_CLUSTER ? { CLICKHOUSE_CLUSTER: process.env.CLICKHOUSE_CLUSTER } : {}
  return {
    CLICKHOUSE_URL: url,
    CLICKHOUSE_DATABASE: clickHouseDatabaseFor(dataDir),
    ...(process.env.CLICKHOUSE_USER ? { CLICKHOUSE_USER: process.env.CLICKHOUSE_USER } : {}),
    ...(process.env.CLICKHOUSE_PASSWORD ? { CLICKHOUSE_PASSWORD: process.env.CLICKHOUSE_PASSWORD } : {}),
  }
}

/** connectClickHouse's options for data in `dataDir`, in the tests' mode. */
export function clickHouseOptionsFor(dataDir: string): {
  dataDir: string
  url?: string
  database?: string
  username?: string
  password?: string
  cluster?: string
} {
  const env = clickHouseEnvFor(dataDir)
  return {
    dataDir,
    ...(env.CLICKHOUSE_URL ? { url: env.CLICKHOUSE_URL } : {}),
    ...(env.CLICKHOUSE_DATABASE ? { database: env.CLICKHOUSE_DATABASE } : {}),
    ...(env.CLICKHOUSE_USER ? { username: env.CLICKHOUSE_USER } : {}),
    ...(env.CLICKHOUSE_PASSWORD ? { password: env.CLICKHOUSE_PASSWORD } : {}),
    ...(env.CLICKHOUSE_CLUSTER ? { cluster: env.CLICKHOUSE_CLUSTER } : {}),
  }
}
