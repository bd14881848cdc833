import type { LogFn, SharedCache, SlotStore } from '@burrow/cache'
import type { ClickHouse } from '@burrow/clickhouse'
import type { CohortRow, Pool } from '@burrow/postgres'
import type { QueryLimits } from './queries/limits'

/** The storage a core verb works with; built once by the server and handed to every verb. */
export interface CoreDeps {
  sql: Pool
  ch: ClickHouse
  cache: SharedCache
  /** A failure's error goes in `err`, apart from the message, so that logs keep it structured. */
  log: LogFn
  /** Where started cohort calculations go; without it (tools, tests of other parts) they stay pending. */
  cohortCalculations?: { enqueue(row: CohortRow): void }
  /** How analytics queries are bounded; PostHog's defaults without it. */
  queryLimits?: QueryLimits
  /** Where the query slots of every server are counted (Redis); without it, each server counts its own. */
  querySlots?: SlotStore
}
