import { randomUUID } from 'node:crypto'
import {
  deadLetterQueue,
  events as eventsTable,
  isDataRejection,
  toClickHouseDateTime,
  type ClickHouse,
  type DeadLetterRow,
} from '@burrow/clickhouse'
import type { IngestionMetrics } from './metrics'

/** A row ready for ClickHouse, with what a dead letter needs should ClickHouse reject it. */
export interface PendingRow {
  line: string
  teamId: number
  event: string
  uuid: string
  distinctId: string
  timestampMs: number
  /** The event as the client sent it: serialised only if it ends up a dead letter. */
  raw: unknown
  ip: string
}

export interface BatcherOptions {
  ch: ClickHouse
  metrics: IngestionMetrics
  maxRows: number
  maxAgeMs: number
  /** Rows accepted but not yet inserted; past this, `add` refuses so capture can answer 503. */
  maxBufferedRows: number
  log: (msg: string) => void
  /** Called with each batch once it is stored (for event definitions). */
  onStored?: (rows: readonly PendingRow[]) => Promise<void>
  /** Back-off bounds for retried inserts. */
  retryBaseMs?: number
  retryMaxMs?: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Collects encoded rows and inserts them into ClickHouse by size or age. Inserts run one at a
 * time, in order; a failed insert is retried with exponential back-off and jitter until it
 * succeeds or its rows turn out to be the problem, in which case each row is tried alone and
 * the ones ClickHouse rejects go to the dead letter queue.
 */
export class EventBatcher {
  private current: PendingRow[] = []
  private currentSince = 0
  private buffered = 0
  private chain: Promise<void> = Promise.resolve()
  private timer: NodeJS.Timeout | undefined
  private closed = false

  constructor(private readonly options: BatcherOptions) {
    this.timer = setInterval(() => this.cutIfOld(), Math.max(10, Math.floor(options.maxAgeMs / 4)))
    this.timer.unref()
  }

  get bufferedRows(): number {
    return this.buffered
  }

  /** Whether `count` more rows fit in the buffer. */
  hasRoomFor(count: number): boolean {
    return !this.closed && this.buffered + count <= this.options.maxBufferedRows
  }

  /** Queues rows for insertion. Callers check hasRoomFor first. */
  add(rows: PendingRow[]): void {
    if (rows.length === 0) return
    if (this.closed) throw new Error('the batcher is closed')
    if (this.current.length === 0) this.currentSince = Date.now()
    for (const row of rows) this.current.push(row)
    this.buffered += rows.length
    this.options.metrics.bufferDepth.set(this.buffered)
    if (this.current.length >= this.options.maxRows) this.cut()
  }

  /** Inserts everything queued so far and resolves when it is stored. */
  async flush(): Promise<void> {
    this.cut()
    await this.chain
  }

  /** Stops accepting rows, stores what was accepted, and stops the timer. */
  async close(): Promise<void> {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    await this.flush()
  }

  private cutIfOld(): void {
    if (this.current.length > 0 && Date.now() - this.currentSince >= this.options.maxAgeMs) this.cut()
  }

  private cut(): void {
    if (this.current.length === 0) return
    const batch = this.current
    this.current = []
    this.chain = this.chain.then(() => this.store(batch))
  }

  private async store(batch: PendingRow[]): Promise<void> {
    const started = performance.now()
    await this.insertWithRetry(batch)
    this.options.metrics.flushDuration.observe((performance.now() - started) / 1000)
    this.options.metrics.batchSize.observe(batch.length)
    this.buffered -= batch.length
    this.options.metrics.bufferDepth.set(this.buffered)
    try {
      await this.options.onStored?.(batch)
    } catch (err) {
      this.options.log(`after-store hook failed: ${String(err)}`)
    }
  }

  private async insertWithRetry(batch: PendingRow[]): Promise<void> {
    const body = Buffer.from(batch.map((r) => r.line).join(''))
    for (let attempt = 0; ; attempt++) {
      try {
        await eventsTable.insertEncodedEvents(this.options.ch, body)
        this.options.metrics.eventsInserted.inc(batch.length)
        return
      } catch (err) {
        if (isDataRejection(err)) {
          await this.insertRowByRow(batch, err)
          return
        }
        this.options.metrics.flushRetries.inc()
        const delay = this.backoff(attempt)
        this.options.log(`insert of ${batch.length} events failed (attempt ${attempt + 1}), retrying in ${delay} ms: ${String(err)}`)
        await sleep(delay)
      }
    }
  }

  private backoff(attempt: number): number {
    const base = this.options.retryBaseMs ?? 100
    const max = this.options.retryMaxMs ?? 30_000
    const ceiling = Math.min(max, base * 2 ** Math.min(attempt, 20))
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2))
  }

  /** After a batch was rejected for its content: stores the good rows, dead-letters the bad. */
  private async insertRowByRow(batch: PendingRow[], batchError: unknown): Promise<void> {
    this.options.log(`batch of ${batch.length} rejected for its content, inserting row by row: ${String(batchError)}`)
    const rejected: { row: PendingRow; error: unknown }[] = []
    for (const row of batch) {
      try {
        await this.retryUnlessContent(() => eventsTable.insertEncodedEvents(this.options.ch, Buffer.from(row.line)))
        this.options.metrics.eventsInserted.inc()
      } catch (error) {
        rejected.push({ row, error })
      }
    }
    if (rejected.length === 0) return
    await this.storeDeadLetters(
      rejected.map(({ row, error }) =>
        deadLetterFor(row, { location: 'clickhouse_insert', reason: 'clickhouse_rejected_row', error: String(error) }),
      ),
    )
  }

  /** Writes dead letters, retrying while ClickHouse is unavailable; resolves once they are stored. */
  async storeDeadLetters(letters: DeadLetterRow[]): Promise<void> {
    if (letters.length === 0) return
    await this.retryUnlessContent(() => deadLetterQueue.insertDeadLetters(this.options.ch, letters))
    for (const letter of letters) this.options.metrics.eventsDeadLettered.inc({ reason: letter.tags[0] ?? 'unknown' })
  }

  /** Retries an insert while the failure is not about the data. */
  private async retryUnlessContent(insert: () => Promise<void>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await insert()
        return
      } catch (err) {
        if (isDataRejection(err)) throw err
        this.options.metrics.flushRetries.inc()
        await sleep(this.backoff(attempt))
      }
    }
  }
}

/** A dead-letter row for an event, keeping the payload as the client sent it. */
export function deadLetterFor(
  row: Pick<PendingRow, 'uuid' | 'event' | 'distinctId' | 'teamId' | 'raw' | 'ip'>,
  failure: { location: string; reason: string; error: string },
): DeadLetterRow {
  const now = toClickHouseDateTime(Date.now())
  let rawPayload: string
  try {
    rawPayload = JSON.stringify(row.raw) ?? ''
  } catch (err) {
    rawPayload = `unserialisable payload: ${String(err)}`
  }
  return {
    id: randomUUID(),
    event_uuid: row.uuid || '00000000-0000-0000-0000-000000000000',
    event: row.event,
    properties: '{}',
    distinct_id: row.distinctId,
    team_id: row.teamId,
    elements_chain: '',
    created_at: now,
    ip: row.ip,
    site_url: '',
    now,
    raw_payload: rawPayload,
    error_timestamp: now,
    error_location: failure.location,
    error: failure.error,
    tags: [failure.reason],
  }
}
