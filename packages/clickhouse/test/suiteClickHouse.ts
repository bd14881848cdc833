import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { connectClickHouse, type ClickHouse, type ClickHouseOptions } from '../src/connect'
import { migrateClickHouse } from '../src/migrate'

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

/**
 * A migrated ClickHouse of the suite's mode for one test file, in a directory named from
 * `prefix`: connected before the file's tests, closed and removed after them.
 */
export function useSuiteClickHouse(prefix: string): { readonly ch: ClickHouse } {
  const root = mkdtempSync(path.join(tmpdir(), prefix))
  let ch: ClickHouse | undefined
  beforeAll(async () => {
    ch = await connectClickHouse(suiteClickHouseOptions(root))
    await migrateClickHouse(ch)
  })
  afterAll(async () => {
    await ch?.close()
    rmSync(root, { recursive: true, force: true })
  })
  return {
    get ch() {
      if (!ch) throw new Error('the suite’s ClickHouse is used before it is connected')
      return ch
    },
  }
}
