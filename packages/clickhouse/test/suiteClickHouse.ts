import path from 'node:path'
import type { ClickHouseOptions } from '../src/connect'

/**
 * This package's integration tests' ClickHouse, in the suite's mode: on the suite's server
 * (CLICKHOUSE_URL) a database of the test's own; else the embedded engine under `root`, laid out
 * for a cluster when the suite's cluster run sets CLICKHOUSE_CLUSTER.
 */
export function suiteClickHouseOptions(root: string): ClickHouseOptions {
  const url = process.env.CLICKHOUSE_URL
  if (url) return { dataDir: root, url, database: `burrow_test_${path.basename(root).replaceAll('-', '_')}` }
  return { dataDir: root, cluster: process.env.CLICKHOUSE_CLUSTER }
}
