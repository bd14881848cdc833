import { defineConfig } from 'vitest/config'

const everyWorkspace = ['apps/*/src', 'apps/*/test', 'packages/*/src', 'packages/*/test']

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
          include: everyWorkspace.map((dir) => `${dir}/**/*.test.ts`),
          exclude: ['**/node_modules/**', '**/*.int.test.ts'],
          isolate: false,
          testTimeout: 10_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: everyWorkspace.map((dir) => `${dir}/**/*.int.test.ts`),
          exclude: ['**/node_modules/**'],
          pool: 'forks',
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
