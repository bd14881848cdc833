import { encodeEvent, INGESTION_STEPS, mayHoldLoneSurrogates, runPipeline, wellFormed, type RawEvent } from '@burrow/capture'
import { deadLetterQueue, events as eventsTable, toClickHouseDateTime, type ClickHouse, type StoredDeadLetter } from '@burrow/clickhouse'
import type { IngestionProject } from '@burrow/core'
import type { FrameContent } from '@burrow/spool'

export interface DeadLetterDeps {
  ch: ClickHouse
  /** The project a dead letter belongs to, or null if it no longer exists. */
  projectById: (id: number) => Promise<IngestionProject | null>
  /**
   * Group and person processing of replayed events, as the spool consumer does it
   * (GroupStage.assign, then PersonStage.assign): the frames to store, when groups rewrote them.
   */
  assignPersons: (frames: FrameContent[]) => Promise<FrameContent[] | void>
}

export interface DeadLetterFilter {
  teamId?: number | undefined
  ids?: string[] | undefined
  limit?: number | undefined
}

export interface ReplayOutcome {
  id: string
  replayed: boolean
  /** Why the letter stays in the queue. */
  error?: string
}

export function listDeadLetters(ch: ClickHouse, filter: DeadLetterFilter): Promise<StoredDeadLetter[]> {
  return deadLetterQueue.listDeadLetters(ch, { teamId: filter.teamId, ids: filter.ids, limit: filter.limit ?? 100 })
}

/** Removes the dead letters the filter selects for good; answers how many. */
export function purgeDeadLetters(ch: ClickHouse, filter: Omit<DeadLetterFilter, 'limit'>): Promise<number> {
  return deadLetterQueue.purgeDeadLetters(ch, { teamId: filter.teamId, ids: filter.ids })
}

/** The row to store again for a dead letter, or why there is none. */
async function rowFor(letter: StoredDeadLetter, deps: DeadLetterDeps): Promise<{ line: string } | { error: string }> {
  // A row ClickHouse refused is kept as the row (its person already given): it is stored again as it is.
  if (letter.tags.includes('clickhouse_rejected_row'))
    return { line: letter.raw_payload.endsWith('\n') ? letter.raw_payload : `${letter.raw_payload}\n` }
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
    const [stored] = (await deps.assignPersons([frame])) ?? [frame]
    return { line: (stored ?? frame).body.toString('utf8') }
  } catch (err) {
    return { error: String(err) }
  }
}

/**
 * Ingests dead letters again: client events through the pipeline, refused rows as they are.
 * Each letter that is stored leaves the queue; one that fails again stays, with the reason.
 */
export async function replayDeadLetters(deps: DeadLetterDeps, filter: DeadLetterFilter): Promise<ReplayOutcome[]> {
  const letters = await listDeadLetters(deps.ch, { ...filter, limit: filter.limit ?? 10_000 })
  const outcomes: ReplayOutcome[] = []
  for (const letter of letters) {
    const row = await rowFor(letter, deps)
    if ('error' in row) {
      outcomes.push({ id: letter.id, replayed: false, error: row.error })
      continue
    }
    try {
      await eventsTable.insertEncodedEvents(deps.ch, Buffer.from(row.line))
      await deadLetterQueue.deleteDeadLetters(deps.ch, [letter.id])
      outcomes.push({ id: letter.id, replayed: true })
    } catch (err) {
      outcomes.push({ id: letter.id, replayed: false, error: String(err) })
    }
  }
  return outcomes
}
