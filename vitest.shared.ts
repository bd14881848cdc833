import { defineConfig } from 'vitest/config'

/**
 * Test files run one at a time, each in its own process: an embedded ClickHouse (chDB) engine
 * belongs to one process, and the machines have two cores.
 */
export default defineConfig({
  test: {
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
})
