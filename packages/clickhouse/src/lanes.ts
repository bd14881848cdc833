import type { ClickHouseSettings, DataFormat, ResponseHeaders } from '@clickhouse/client'

/** One statement as a reader lane runs it. */
export interface Statement {
  kind: 'query' | 'command'
  sql: string
  params: Record<string, unknown>
  settings: ClickHouseSettings
  /** The answer's format, for a query. */
  format: DataFormat
  /** The statement's own id (a uuid): its query_id and log_comment, by which it is found to be killed. */
  id: string
  /** Aborted when its caller no longer waits (its limit, a cancellation): a lane that can, drops the statement. */
  signal: AbortSignal
}

export interface StatementAnswer {
  text: string
  headers: ResponseHeaders
}

/**
 * A connection that runs one statement at a time. The pool hands it to one statement and takes
 * it back once that statement has ended, never before: on the embedded engine a statement the
 * caller gave up on still runs (until it is killed), and what it wrote must be drained first.
 */
export interface Lane {
  run(statement: Statement): Promise<StatementAnswer>
  /** Leaves the connection clean for the next statement after one that failed or was killed. */
  reset(): Promise<void>
  close(): Promise<void>
}

/** Out-of-band work on a connection of its own, never queued behind the lanes' statements. */
export interface Control {
  /** Asks ClickHouse to stop the statement with this id (run by a lane), without waiting for it to stop. */
  kill(id: string): Promise<void>
  /** Throws ClickHouseUnavailable when the server does not answer its ping in time; absent for the embedded engine, which cannot freeze apart from the process. */
  ping?(): Promise<void>
  /** Runs `SELECT 1` as the service's user: whether ClickHouse answers statements, whatever the lanes are busy with. */
  probe(signal?: AbortSignal): Promise<void>
  close(): Promise<void>
}

const STATEMENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * KILL QUERY for a statement of ours. The id is a uuid the pool made (checked here), written
 * into the statement: a parameter would put it, on the embedded engine, behind every other
 * statement with parameters (chDB runs those one at a time).
 */
export function killStatementSql(id: string): string {
  if (!STATEMENT_ID.test(id)) throw new Error('a statement id is a uuid')
  return `KILL QUERY WHERE query_id = '${id}' OR Settings['log_comment'] = '${id}' ASYNC`
}

/** A ClickHouse string literal. */
export function quoteString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
}

/** A setting's value as SET takes it. */
export function settingValue(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  if (typeof value === 'boolean') return value ? '1' : '0'
  return quoteString(String(value))
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** A setting's or parameter's name, checked before it is written into a statement. */
export function checkedName(name: string): string {
  if (!NAME.test(name)) throw new Error(`${JSON.stringify(name)} is not a setting or parameter name`)
  return name
}
