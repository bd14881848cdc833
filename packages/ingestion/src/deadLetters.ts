import { encodeEvent, INGESTION_STEPS, mayHoldLoneSurrogates, runPipeline, wellFormed, type RawEvent } from '@burrow/capture'
import { deadLetterQueue, events as eventsTable, toClickHouseDateTime, type ClickHouse, type StoredDeadLetter } from '@burrow/clickhouse'
import type { IngestionProject } from '@burrow/core'
import type { FrameContent } from '@burrow/spool'

export interface DeadLetterDeps {
  ch: ClickHouse
  /** The project a dead letter belongs to, or null if it no longer exists. */
  projectById: (id: number) => Promise<IngestionProject | null>
  /**
   * What the spool consumer does to events before it stores them: the projects' plugin
   * transformations, then groups and persons. Answers the frames to store (none for an event a
   * plugin dropped).
   */
  process: (frames: FrameContent[]) => Promise<FrameContent[]>
  /** What the consumer does once events are stored: queue them for the projects' destinations. */
  afterStored: (frames: FrameContent[]) => Promise<void>
}

export interface DeadLetterFilter {
  teamId?: number | undefined
  ids?: string[] | undefined
  limit?: number | undefined
}

export interface ReplayOutcome {
  id: string
  /** Stored (or dropped by a plugin, as ingestion would have dropped it), and out of the queue. */
  replayed: boolean
  /** Why the letter stays in the queue. */
  error?: string
  /** What went wrong after the letter was stored: it is not replayed again, so that it is not stored twice. */
  warning?: string
}

export function listDeadLetters(ch: ClickHouse, filter: DeadLetterFilter): Promise<StoredDeadLetter[]> {
  return deadLetterQueue.listDeadLetters(ch, { teamId: filter.teamId, ids: filter.ids, limit: filter.limit ?? 100 })
}

/** Removes the dead letters the filter selects for good; answers how many. */
export function purgeDeadLetters(ch: ClickHouse, filter: Omit<DeadLetterFilter, 'limit'>): Promise<number> {
  return deadLetterQueue.purgeDeadLetters(ch, { teamId: filter.teamId, ids: filter.ids })
}

/** The frame to store again for a dead letter (no rows when a plugin drops it), or why there is none. */
async function frameFor(letter: StoredDeadLetter, deps: DeadLetterDeps): Promise<{ frame: FrameContent } | { error: string }> {
  // A row ClickHouse refused is kept as the row (plugins run, its person given): it is stored again as it is.
  if (letter.tags.includes('clickhouse_rejected_row')) {
    const line = letter.raw_payload.endsWith('\n') ? letter.raw_payload : `${letter.raw_payload}\n`
    return { frame: { rows: 1, sightings: [], teamId: letter.team_id, persons: undefined, body: Buffer.from(line) } }
  }
  let raw: RawEvent
  try {
    raw = JSON.parse(letter.raw_payload) as RawEvent
    if (mayHoldLoneSurrogates(letter.raw_payload)) raw = wellFormed(raw) as RawEvent
  } catch (err) {
    return { error: `the payload is not JSON: ${String(err)}` }
  }
  const project = await deps.projectById(letter.team_id)
  if (!project) return { error: `project ${letter.team_id} no longer exists` }
  const now = Date.now()
  const outcome = runPipeline(INGESTION_STEPS, raw, { project, ip: letter.ip || undefined, nowMs: now, sentAtMs: undefined })
  if (outcome.kind === 'drop') return { error: `dropped by ${outcome.step}: ${outcome.reason}` }
  if (outcome.kind === 'dlq') return { error: `refused by ${outcome.step}: ${outcome.error}` }
  try {
    const body = Buffer.from(encodeEvent(outcome.event, project.id, toClickHouseDateTime(now)))
    const frame: FrameContent = { rows: 1, sightings: [], teamId: project.id, persons: [outcome.event.person], body }
    const [stored] = await deps.process([frame])
    return { frame: stored ?? { ...frame, rows: 0, body: Buffer.alloc(0) } }
  } catch (err) {
    return { error: String(err) }
  }
}

/**
 * Ingests dead letters again as the consumer ingests events: client events through the pipeline
 * and the projects' plugins, refused rows as they are; then the projects' destinations get them.
 * Each letter that is stored (or that a plugin drops) leaves the queue; one that fails again
 * stays, with the reason.
 */
export async function replayDeadLetters(deps: DeadLetterDeps, filter: DeadLetterFilter): Promise<ReplayOutcome[]> {
  const letters = await listDeadLetters(deps.ch, { ...filter, limit: filter.limit ?? 10_000 })
  const outcomes: ReplayOutcome[] = []
  for (const letter of letters) {
    const prepared = await frameFor(letter, deps)
    if ('error' in prepared) {
      outcomes.push({ id: letter.id, replayed: false, error: prepared.error })
      continue
    }
    const { frame } = prepared
    try {
      if (frame.rows > 0) await eventsTable.insertEncodedEvents(deps.ch, frame.body)
      await deadLetterQueue.deleteDeadLetters(deps.ch, [letter.id])
    } catch (err) {
      outcomes.push({ id: letter.id, replayed: false, error: String(err) })
      continue
    }
    try {
      if (frame.rows > 0) await deps.afterStored([frame])
      outcomes.push({ id: letter.id, replayed: true })
    } catch (err) {
      outcomes.push({ id: letter.id, replayed: true, warning: `stored, but not queued for the project's destinations: ${String(err)}` })
    }
  }
  return outcomes
}
