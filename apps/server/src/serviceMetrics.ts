import { readFileSync } from 'node:fs'
import { deadLetterQueue, type ClickHouse } from '@burrow/clickhouse'
import { Gauge, type Registry } from 'prom-client'

/** The release, from the server's package.json (beside src/ and beside the built dist/). */
export const SERVICE_VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown'
  } catch {
    return 'unknown'
  }
})()

/** Which release and runtime an instance runs, as a gauge of 1 with labels (Prometheus' convention for build info). */
export function registerBuildInfo(registry: Registry): void {
  new Gauge({
    name: 'burrow_build_info',
    help: 'The release and Node.js version this instance runs (always 1)',
    labelNames: ['version', 'node_version'] as const,
    registers: [registry],
  }).set({ version: SERVICE_VERSION, node_version: process.version }, 1)
}

/** A count of the dead letter queue is reused this long: scrapes every few seconds need not each ask ClickHouse. */
const DEAD_LETTERS_CACHE_MS = 15_000

/** Rows in the dead letter queue: events ClickHouse refused, waiting to be repaired and replayed (`cli dlq`). */
export function registerDeadLetterGauge(registry: Registry, ch: ClickHouse, timeoutMs: number): void {
  let last: { at: number; rows: number } | undefined
  new Gauge({
    name: 'burrow_dead_letter_queue_rows',
    help: 'Rows in the dead letter queue (refused events waiting to be replayed), counted at most every 15 s',
    registers: [registry],
    async collect() {
      if (!last || Date.now() - last.at >= DEAD_LETTERS_CACHE_MS) {
        try {
          const result = await ch.reader.query({
            query: `SELECT count() AS n FROM ${deadLetterQueue.DEAD_LETTER_TABLE}`,
            format: 'JSONEachRow',
            abort_signal: AbortSignal.timeout(timeoutMs),
          })
          const [row] = await result.json<{ n: string }>()
          last = { at: Date.now(), rows: Number(row?.n ?? 0) }
        } catch {
          // ClickHouse down: the last count stands (burrow_dependency_up says why it is not fresh).
        }
      }
      if (last) this.set(last.rows)
    },
  })
}
