import { defineConfig } from 'vitest/config'

const everyWorkspace = ['apps/*/src', 'apps/*/test', 'packages/*/src', 'packages/*/test']

const serverMode = process.env.TEST_CLICKHOUSE === 'standin'
const clusterMode = process.env.TEST_CLICKHOUSE === 'cluster'

/**
 * Integration files that never reach the suite's ClickHouse, so that its server mode would
 * only run them a second time: they run in the first run alone.
 */
const NOT_CLICKHOUSE_SERVER = [
  'apps/server/test/backup.int.test.ts', // backup and restore of the embedded engines' files
  'apps/server/test/ownership.int.test.ts', // who owns the embedded engines' directories
  'apps/server/test/fullDisk.int.test.ts', // the embedded ClickHouse's parts are what fill DATA_DIR
  'packages/postgres/src/embedded.int.test.ts', // the embedded PostgreSQL alone
  'packages/cache/src/redisCache.int.test.ts', // Redis alone
  'packages/cache/src/slots.int.test.ts', // Redis alone
  'packages/testing/src/clickhouseStandin/standin.int.test.ts', // a stand-in of its own, in either mode
  'apps/server/test/clickhouseServer.int.test.ts', // a stand-in of its own, in either mode
  'apps/server/test/build.int.test.ts', // the build and the CLI's launcher alone
  // the console: sign-in and sessions (PostgreSQL and Redis alone) and its pages in a browser,
  // whose content does not depend on how ClickHouse is reached
  'apps/server/test/console*.int.test.ts',
  'apps/server/test/hogqlFuzz.int.test.ts', // the HogQL parser's bounds and thread, whatever stores the events
  'apps/server/test/slowClients.int.test.ts', // connections cut off by the HTTP server, before any storage
]

/** Integration files that never reach the service's ClickHouse tables: the cluster layout's run leaves them out. */
const NOT_CLUSTER_LAYOUT = [
  'packages/postgres/src/embedded.int.test.ts', // the embedded PostgreSQL alone
  'packages/cache/src/redisCache.int.test.ts', // Redis alone
  'packages/cache/src/slots.int.test.ts', // Redis alone
  'packages/testing/src/clickhouseStandin/standin.int.test.ts', // the stand-in's HTTP interface
  'apps/server/test/clickhouseServer.int.test.ts', // a stand-in of its own, in one server's layout
  'apps/server/test/instances.int.test.ts', // instances sharing a stand-in (or the suite's server), in one server's layout
  'apps/server/test/build.int.test.ts', // the build and the CLI's launcher alone
  'apps/server/test/console*.int.test.ts', // the console's sessions and pages, whatever the tables' layout
  'apps/server/test/hogqlFuzz.int.test.ts', // the HogQL parser's bounds and thread, whatever the tables' layout
  'apps/server/test/slowClients.int.test.ts', // connections cut off by the HTTP server, before any storage
  'apps/server/test/ownership.int.test.ts', // the data directory's owners and modes, whatever the tables' layout
]

/**
 * Two tiers. `unit`: pure tests (`x.test.ts`), no services, run in parallel; `npm run test:unit`
 * runs them in seconds. `integration`: tests that need PostgreSQL, Redis or ClickHouse
 * (`x.int.test.ts`), one file at a time, each in its own process: an embedded ClickHouse (chDB)
 * engine belongs to one process, and the machines have two cores.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          // The console's component tests (.tsx) name their DOM (happy-dom) in a comment at their top.
          include: everyWorkspace.map((dir) => `${dir}/**/*.test.{ts,tsx}`),
          exclude: ['**/node_modules/**', '**/*.int.test.ts'],
          isolate: false,
          testTimeout: 10_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: everyWorkspace.map((dir) => `${dir}/**/*.int.test.ts`),
          exclude: ['**/node_modules/**', ...(serverMode ? NOT_CLICKHOUSE_SERVER : []), ...(clusterMode ? NOT_CLUSTER_LAYOUT : [])],
          pool: 'forks',
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 120_000,
          // TEST_CLICKHOUSE=standin: the same tests against ClickHouse's HTTP interface (a stand-in
          // process over chDB) instead of the embedded engine; see packages/testing/src/clickhouseMode.ts.
          globalSetup: serverMode ? ['packages/testing/src/clickhouseStandin/globalSetup.ts'] : [],
          // TEST_CLICKHOUSE=cluster: the same tests with the tables laid out for a cluster, the
          // embedded engine being its one shard (Distributed tables over local ones).
          env: clusterMode ? { CLICKHOUSE_CLUSTER: 'rehearsal' } : {},
        },
      },
    ],
  },
})
