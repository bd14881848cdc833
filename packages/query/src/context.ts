import type { ClickHouse, PropertyExpression } from '@burrow/clickhouse'
import type { ActionStep } from '@burrow/contracts'

/**
 * What every analytics query runs against: one project's events, read in that project's
 * timezone. Every runner scopes each table it reads to `teamId`.
 */
export interface QueryContext {
  ch: ClickHouse
  teamId: number
  /** The project's IANA timezone: buckets, relative dates and day ends are computed in it. */
  timezone: string
  /** 0 when weeks start on Sunday, 1 on Monday (the project's `week_start_day`). */
  weekStartDay: 0 | 1
  /**
   * The project's `test_account_filters` (PostHog's property filters): what `filterTestAccounts`
   * applies, each filter ANDed with the query's.
   */
  testAccountFilters: unknown
  /**
   * The project's `path_cleaning_filters` (PostHog's `{regex, alias}` rules): what a paths query's
   * `pathReplacements` applies. None when the caller has no project settings.
   */
  pathCleaningFilters?: unknown
  /** The moment relative dates count from, fixed once per query so that all of its parts agree. */
  now: Date
  /** How long the query may take, in seconds: every statement it runs together, when `deadline` is set; else each. */
  maxExecutionSeconds: number
  /**
   * When (epoch milliseconds) the query's time is up: each statement gets what is left of it, so
   * that a query of several statements answers within its limit too.
   */
  deadline?: number
  /** Aborted when the caller goes away or cancels: the statement under way is cancelled. */
  signal?: AbortSignal
  /**
   * PostHog's property filters (a list, a group, cohorts) as a condition tree, cohorts pinned to
   * their current calculation; a malformed filter is a 400 naming `attr`. Supplied by the caller,
   * which owns the project's cohorts.
   */
  properties(raw: unknown, attr: string): Promise<PropertyExpression | undefined>
  /**
   * The project's cohorts of `ids` that exist, each with its name and its membership as a
   * condition pinned to its current calculation (for a cohort breakdown). Supplied by the caller.
   */
  cohorts?(ids: readonly number[]): Promise<Array<{ id: number; name: string; members: PropertyExpression }>>
  /** The project's actions of `ids` that exist and are not deleted (for ActionsNode series). Supplied by the caller. */
  actions?(ids: readonly number[]): Promise<StoredAction[]>
}

/** An action of the project, as the caller loads it for a query. */
export interface StoredAction {
  id: number
  name: string
  steps: ActionStep[]
}
