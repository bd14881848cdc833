import { readFile } from 'node:fs/promises'
import path from 'node:path'
import type { ClickHouse } from './connect'

/** A part ClickHouse set aside (a broken one found at start, or one detached by hand): its rows are not read. */
export interface DetachedPart {
  table: string
  /** The partition: for events, the month of the events' timestamps (YYYYMM). */
  partition: string | null
  name: string
  /** Why ClickHouse detached it (`broken-on-start`, `unexpected`, ...); empty when detached by a command. */
  reason: string
  bytes: number
  /** How many rows it holds, when its files are readable from here (the embedded engine); else null. */
  rows: number | null
}

interface DetachedPartRow {
  table: string
  partition_id: string | null
  name: string
  reason: string | null
  bytes_on_disk: string | number
  path: string
}

/** The detached parts of the service's tables. */
export async function detachedParts(ch: ClickHouse): Promise<DetachedPart[]> {
  const result = await ch.reader.query({
    query: `SELECT table, partition_id, name, reason, bytes_on_disk, path FROM system.detached_parts
      WHERE database = currentDatabase() ORDER BY table, name`,
    format: 'JSONEachRow',
  })
  const rows = await result.json<DetachedPartRow>()
  return Promise.all(
    rows.map(async (row) => ({
      table: row.table,
      partition: row.partition_id,
      name: row.name,
      reason: row.reason ?? '',
      bytes: Number(row.bytes_on_disk),
      rows: await rowsOf(row.path),
    })),
  )
}

/** A part's row count is in its count.txt; a ClickHouse server's parts are on its own disk, out of reach. */
async function rowsOf(partPath: string): Promise<number | null> {
  try {
    const count = Number((await readFile(path.join(partPath, 'count.txt'), 'utf8')).trim())
    return Number.isSafeInteger(count) ? count : null
  } catch {
    return null
  }
}

/** Names ClickHouse gives its tables and parts: anything else is refused rather than written into a statement. */
const TABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const PART_NAME = /^[A-Za-z0-9_.-]+$/

/**
 * Removes a detached part and its files for good. The statement takes no query parameters for
 * these names, so they are checked against what ClickHouse itself names tables and parts.
 */
export async function dropDetachedPart(ch: ClickHouse, part: Pick<DetachedPart, 'table' | 'name'>): Promise<void> {
  if (!TABLE_NAME.test(part.table) || !PART_NAME.test(part.name)) throw new Error(`not a part ClickHouse names: ${part.table} ${part.name}`)
  await ch.writer.command({
    query: `ALTER TABLE ${part.table} DROP DETACHED PART '${part.name}' SETTINGS allow_drop_detached = 1`,
  })
}
