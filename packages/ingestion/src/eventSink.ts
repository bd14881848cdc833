import { OutageLog, type LogFn } from '@burrow/cache'
import { deadLetter } from '@burrow/capture'
import {
  deadLetterQueue,
  events as eventsTable,
  ingestionWarnings,
  isDataRejection,
  type ClickHouse,
  type DeadLetterRow,
  type IngestionWarningRow,
} from '@burrow/clickhouse'
import type { IngestionMetrics } from './metrics'

export interface EventSinkOptions {
  ch: ClickHouse
  metrics: IngestionMetrics
  log: LogFn
  /** Back-off bounds for retried inserts. */
  retryBaseMs?: number
  retryMaxMs?: number
}

export class SinkGaveUp extends Error {
  constructor(cause: unknown) {
    super(`gave up inserting: ${String(cause)}`, { cause })
    this.name = 'SinkGaveUp'
  }
}

/**
 * Inserts encoded event rows into ClickHouse. A failed insert is retried with exponential
 * back-off and jitter while ClickHouse is unavailable; when ClickHouse refuses the rows
 * themselves, each row is tried alone and the refused ones become dead letters.
 */
export class EventSink {
  private retrying = true
  private readonly outage: OutageLog
  /** Since when every attempt to store in ClickHouse has failed, how many, and the last error; undefined while it works. */
  private failing: { since: number; attempts: number; error: unknown } | undefined
  /** The back-off waits under way, ended at once when the sink stops retrying. */
  private readonly waits = new Set<() => void>()

  constructor(private readonly options: EventSinkOptions) {
    this.outage = new OutageLog('clickhouse: inserting events', options.log)
  }

  /** From now on a failing insert throws SinkGaveUp instead of waiting for ClickHouse (shutdown); a wait under way ends now. */
  stopRetrying(): void {
    this.retrying = false
    for (const end of this.waits) end()
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer)
        this.waits.delete(end)
        resolve()
      }
      const timer = setTimeout(end, ms)
      this.waits.add(end)
    })
  }

  /**
   * Stores JSONEachRow lines (`body`, `rows` of them); resolves once each is in ClickHouse or
   * dead-lettered. With `token`, ClickHouse drops the rows if an insert under that token already
   * stored them (a retry whose first attempt went in, a batch inserted again after a crash).
   * `resumed`: the batch an earlier run was inserting when it stopped, whose token the events
   * table may have forgotten since (rebuilt by an upgrade), or a batch of a spool restored from a
   * backup, which its original instance may have stored too: events already stored are left out.
   */
  async insert(body: Buffer, rows: number, token?: string, options: { resumed?: boolean } = {}): Promise<void> {
    const started = performance.now()
    if (options.resumed) ({ body, rows } = await this.retryUnlessContent(() => this.leaveOutStored(body)))
    if (rows === 0) return
    try {
      await this.retryUnlessContent(() => eventsTable.insertEncodedEvents(this.options.ch, body, { deduplicationToken: token }))
      this.options.metrics.eventsInserted.inc(rows)
    } catch (err) {
      if (!isDataRejection(err)) throw err
      await this.insertRowByRow(body, err, token)
    }
    this.options.metrics.flushDuration.observe((performance.now() - started) / 1000)
    this.options.metrics.batchSize.observe(rows)
  }

  /** The lines of `body` whose event (by uuid) is not stored yet. */
  private async leaveOutStored(body: Buffer): Promise<{ body: Buffer; rows: number }> {
    const lines = linesOf(body)
    const uuids = lines.map(uuidOfLine)
    const stored = await eventsTable.storedEventUuids(
      this.options.ch,
      uuids.filter((uuid) => uuid !== undefined),
    )
    const left = lines.filter((_, i) => !stored.has(uuids[i] ?? ''))
    if (left.length < lines.length)
      this.options.log(
        `resumed batch: ${lines.length - left.length} of ${lines.length} events were stored already (before a restart, or by the instance a restored spool came from) and are left out`,
      )
    return { body: Buffer.from(left.map((line) => `${line}\n`).join('')), rows: left.length }
  }

  /** Writes dead letters, retrying while ClickHouse is unavailable; resolves once they are stored. */
  async storeDeadLetters(letters: DeadLetterRow[]): Promise<void> {
    if (letters.length === 0) return
    await this.retryUnlessContent(() => deadLetterQueue.insertDeadLetters(this.options.ch, letters))
    for (const letter of letters) this.options.metrics.eventsDeadLettered.inc({ reason: letter.tags[0] ?? 'unknown' })
  }

  /** Writes ingestion warnings, retrying while ClickHouse is unavailable; resolves once they are stored. */
  async storeIngestionWarnings(warnings: IngestionWarningRow[]): Promise<void> {
    if (warnings.length === 0) return
    await this.retryUnlessContent(() => ingestionWarnings.insertIngestionWarnings(this.options.ch, warnings))
  }

  /** After a batch was refused for its content: stores the good rows, dead-letters the bad. */
  private async insertRowByRow(body: Buffer, batchError: unknown, token: string | undefined): Promise<void> {
    const lines = linesOf(body)
    // Rows refused for what they hold are the data's fault, not a failure of the service: a warning.
    this.options.log(`batch of ${lines.length} rejected for its content, inserting row by row: ${String(batchError).split('\n')[0]}`)
    const letters: DeadLetterRow[] = []
    for (const [i, line] of lines.entries()) {
      try {
        const deduplicationToken = token === undefined ? undefined : `${token}/${i}`
        await this.retryUnlessContent(() =>
          eventsTable.insertEncodedEvents(this.options.ch, Buffer.from(`${line}\n`), { deduplicationToken }),
        )
        this.options.metrics.eventsInserted.inc()
      } catch (error) {
        if (!isDataRejection(error)) throw error
        letters.push(deadLetterForRow(line, String(error)))
      }
    }
    await this.storeDeadLetters(letters)
  }

  /**
   * Whether events are being stored, as readiness reports it: failing once the stores under way
   * have failed FAILING_AFTER attempts in a row (a batch that keeps failing holds every event
   * behind it), with how long, how many attempts and the last error.
   */
  readiness(): { ok: boolean; error?: string; detail?: Record<string, number> } {
    const failing = this.failing
    if (!failing || failing.attempts < FAILING_AFTER) return { ok: true }
    const seconds = Math.round((Date.now() - failing.since) / 1000)
    return {
      ok: false,
      error: `storing events in ClickHouse has failed for ${seconds} s (${failing.attempts} attempts, retried until it works): ${describe(failing.error)}`,
      detail: { failing_seconds: seconds, failed_attempts: failing.attempts },
    }
  }

  /** How long storing in ClickHouse has failed without a success, in seconds; 0 while it works. */
  failingSeconds(): number {
    return this.failing ? (Date.now() - this.failing.since) / 1000 : 0
  }

  private async retryUnlessContent<T>(attempt: () => Promise<T>): Promise<T> {
    for (let tries = 0; ; tries++) {
      try {
        const result = await attempt()
        this.outage.succeeded()
        this.failing = undefined
        return result
      } catch (err) {
        if (isDataRejection(err)) throw err
        if (!this.retrying) throw new SinkGaveUp(err)
        this.options.metrics.flushRetries.inc()
        this.failing ??= { since: Date.now(), attempts: 0, error: err }
        this.failing.attempts++
        this.failing.error = err
        this.outage.failed(err)
        await this.sleep(this.backoff(tries))
        if (!this.retrying) throw new SinkGaveUp(err)
      }
    }
  }

  private backoff(attempt: number): number {
    const base = this.options.retryBaseMs ?? 100
    const max = this.options.retryMaxMs ?? 30_000
    const ceiling = Math.min(max, base * 2 ** Math.min(attempt, 20))
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2))
  }
}

/** Failed attempts in a row after which readiness says storing is failing: a blip retried at once is not worth a page. */
const FAILING_AFTER = 3

/** An error's first line: where it failed and, briefly, what answered. */
function describe(err: unknown): string {
  return String(err instanceof Error ? err.message : err)
    .split('\n')[0]!
    .slice(0, 300)
}

/** The JSONEachRow lines of an insert's body. */
function linesOf(body: Buffer): string[] {
  return body
    .toString('utf8')
    .split('\n')
    .filter((line) => line.length > 0)
}

/** An encoded row's event uuid; a line that does not parse is left in (ClickHouse judges it). */
function uuidOfLine(line: string): string | undefined {
  try {
    const { uuid } = JSON.parse(line) as { uuid?: unknown }
    return typeof uuid === 'string' ? uuid.toLowerCase() : undefined
  } catch {
    return undefined
  }
}

/** A dead letter for a row ClickHouse refused: the row itself is the payload to repair and replay. */
function deadLetterForRow(line: string, error: string): DeadLetterRow {
  let row: Record<string, unknown> = {}
  try {
    row = JSON.parse(line) as Record<string, unknown>
  } catch {
    // The row is kept as it is in raw_payload either way.
  }
  const text = (v: unknown) => (typeof v === 'string' ? v : '')
  return deadLetter(
    { uuid: text(row.uuid), event: text(row.event), distinctId: text(row.distinct_id), teamId: Number(row.team_id) || 0, ip: '' },
    line,
    { location: 'clickhouse_insert', reason: 'clickhouse_rejected_row', error },
  )
}
