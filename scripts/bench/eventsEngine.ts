import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import {
  connectClickHouse,
  DEFAULT_MATERIALIZED_PROPERTIES,
  ensureMaterializedProperties,
  migrateClickHouse,
  type ClickHouse,
} from '@burrow/clickhouse'

/** The events table as the service starts with it: migrated, with its default property columns. */
export async function asTheServiceStarts(ch: ClickHouse): Promise<void> {
  await migrateClickHouse(ch)
  await ensureMaterializedProperties(ch, DEFAULT_MATERIALIZED_PROPERTIES)
}

/** An embedded ClickHouse in a fresh temporary directory named after `prefix`, its tables as the service starts with them. */
export async function eventsEngine(prefix: string): Promise<{ dataDir: string; ch: ClickHouse }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix))
  const ch = await connectClickHouse({ dataDir })
  await asTheServiceStarts(ch)
  return { dataDir, ch }
}
