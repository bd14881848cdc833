import { detachedParts, type ClickHouse } from '@burrow/clickhouse'
import { Gauge, type Registry } from 'prom-client'
import type { Logger } from './logger'

/**
 * Looks for parts ClickHouse set aside (a part found broken at start is detached and its rows
 * are no longer read): each is logged at error level with its table, partition and rows, and
 * counted in burrow_clickhouse_detached_parts / _rows, since they are events the service
 * acknowledged and no query returns.
 */
export async function reportDetachedParts(ch: ClickHouse, logger: Logger, registry: Registry): Promise<void> {
  const parts = await detachedParts(ch)
  const byTable = new Map<string, { parts: number; rows: number }>()
  for (const part of parts) {
    logger.error(
      { table: part.table, partition: part.partition, part: part.name, reason: part.reason, rows: part.rows, bytes: part.bytes },
      `clickhouse: part ${part.name} of ${part.table} is detached (${part.reason || 'by a command'}): its ${part.rows ?? 'unknown number of'} rows are not read`,
    )
    const total = byTable.get(part.table) ?? { parts: 0, rows: 0 }
    total.parts++
    total.rows += part.rows ?? 0
    byTable.set(part.table, total)
  }
  const gauge = (name: string, help: string, value: (t: { parts: number; rows: number }) => number) => {
    const g = new Gauge({ name, help, labelNames: ['table'] as const, registers: [registry] })
    for (const [table, total] of byTable) g.set({ table }, value(total))
  }
  gauge(
    'burrow_clickhouse_detached_parts',
    'Parts ClickHouse detached (broken at start, or by a command), found at start, by table',
    (t) => t.parts,
  )
  gauge('burrow_clickhouse_detached_rows', 'Rows held by those parts, which no query reads, by table', (t) => t.rows)
}
