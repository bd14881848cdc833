import { readFile, rename, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { detachedParts, dropDetachedPart, type ClickHouse, type DetachedPart } from '@burrow/clickhouse'
import { Gauge, type Registry } from 'prom-client'
import type { Logger } from './logger'

/** How long a part ClickHouse detached as broken is kept after it was first reported: time to look at it, or attach it again. */
export const DETACHED_PART_RETENTION_DAYS = 7
/** How often the detached parts are looked at again while the service runs (a part is found broken at start, but kept past its retention). */
const CHECK_EVERY_MS = 60 * 60 * 1000
const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Reasons for which ClickHouse itself detaches a part: broken or unwanted, never read again.
 * A part detached by a command (no reason) is the operator's, and is never removed.
 */
const BROKEN = new Set([
  'broken',
  'broken-on-start',
  'broken-from-backup',
  'unexpected',
  'noquorum',
  'covered-by-broken',
  'ignored',
  'clone',
])

/** Under DATA_DIR: the parts reported already, and when each was first seen, so that each is reported once. */
const RECORD_FILE = 'detached-parts.json'

export interface DetachedPartsOptions {
  dataDir: string
  /** Days a broken part is kept after it was reported; DETACHED_PART_RETENTION_DAYS by default. */
  retentionDays?: number
  now?: () => number
}

export interface DetachedPartsWatch {
  /** Looks at the detached parts now: reports the new ones, removes the broken ones past their retention. */
  check(): Promise<void>
  stop(): void
}

/**
 * Looks after the parts ClickHouse set aside (a part found broken at start, such as one a merge
 * cut short by a full disk left behind, is detached and its rows are no longer read). Each is
 * reported once, at error level, with its table, partition and rows, since they are events the
 * service acknowledged and no query returns; they are counted in burrow_clickhouse_detached_parts
 * / _rows. A part ClickHouse detached as broken is removed `retentionDays` after it was first
 * reported, or it would take its room on the disk forever. Runs at start, then hourly.
 */
export async function watchDetachedParts(
  ch: ClickHouse,
  logger: Logger,
  registry: Registry,
  options: DetachedPartsOptions,
): Promise<DetachedPartsWatch> {
  const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames: ['table'] as const, registers: [registry] })
  const parts = gauge('burrow_clickhouse_detached_parts', 'Parts ClickHouse detached (broken at start, or by a command), by table')
  const rows = gauge('burrow_clickhouse_detached_rows', 'Rows held by those parts, which no query reads, by table')
  const check = async () => {
    const kept = await lookAfterDetachedParts(ch, logger, options)
    parts.reset()
    rows.reset()
    for (const part of kept) {
      parts.inc({ table: part.table })
      rows.inc({ table: part.table }, part.rows ?? 0)
    }
  }
  await check()
  const timer = setInterval(() => {
    check().catch((err: unknown) => logger.warn({ err }, 'clickhouse: could not look at the detached parts'))
  }, CHECK_EVERY_MS)
  timer.unref()
  return { check, stop: () => clearInterval(timer) }
}

/** Reports the parts not reported yet, removes the broken ones past their retention; answers those left. */
async function lookAfterDetachedParts(ch: ClickHouse, logger: Logger, options: DetachedPartsOptions): Promise<DetachedPart[]> {
  const now = (options.now ?? Date.now)()
  const retentionMs = (options.retentionDays ?? DETACHED_PART_RETENTION_DAYS) * DAY_MS
  const recordPath = path.join(options.dataDir, RECORD_FILE)
  const reported = await readRecord(recordPath)
  const seen: Record<string, number> = {}
  const kept: DetachedPart[] = []
  for (const part of await detachedParts(ch)) {
    const key = `${part.table}/${part.name}`
    const fields = {
      table: part.table,
      partition: part.partition,
      part: part.name,
      reason: part.reason,
      rows: part.rows,
      bytes: part.bytes,
    }
    const firstSeen = reported[key]
    if (firstSeen === undefined) {
      logger.error(
        fields,
        `clickhouse: part ${part.name} of ${part.table} is detached (${part.reason || 'by a command'}): its ${part.rows ?? 'unknown number of'} rows are not read` +
          (BROKEN.has(part.reason) ? `; it is removed in ${retentionMs / DAY_MS} days` : ''),
      )
    } else if (BROKEN.has(part.reason) && now - firstSeen >= retentionMs) {
      try {
        await dropDetachedPart(ch, part)
        logger.warn(
          fields,
          `clickhouse: removed the detached part ${part.name} of ${part.table} (${part.reason}), reported ${Math.floor((now - firstSeen) / DAY_MS)} days ago`,
        )
        continue
      } catch (err) {
        // Another instance on the same server may have removed it first: it is looked at again next time.
        logger.warn({ ...fields, err }, `clickhouse: could not remove the detached part ${part.name} of ${part.table}`)
      }
    }
    seen[key] = firstSeen ?? now
    kept.push(part)
  }
  // Parts gone meanwhile (attached again, removed by hand) are forgotten.
  await writeRecord(recordPath, seen).catch((err: unknown) =>
    logger.warn(
      { err },
      `clickhouse: could not record the detached parts reported in ${recordPath}: they are reported again at the next look`,
    ),
  )
  return kept
}

async function readRecord(file: string): Promise<Record<string, number>> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown
    if (typeof parsed !== 'object' || parsed === null) return {}
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, number] => Number.isFinite(entry[1])))
  } catch {
    // None yet (or unreadable): every part is reported again, which is the safe way to be wrong.
    return {}
  }
}

async function writeRecord(file: string, record: Record<string, number>): Promise<void> {
  const tmp = `${file}.tmp`
  await writeFile(tmp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 })
  await rename(tmp, file)
}
