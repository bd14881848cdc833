import { events as eventsTable, NIL_UUID, toClickHouseDateTimeUs } from '@burrow/clickhouse'
import type { DraftEvent } from './pipeline'

/**
 * An event that went through the pipeline as its JSONEachRow line for the events table.
 * `person_id` is the last field and a placeholder until the consumer knows the person (see
 * setPersonIds), so that the line can be written to the spool before persons are processed.
 */
export function encodeEvent(e: DraftEvent, teamId: number, createdAt: string): string {
  return eventsTable.encodeEventRow({
    uuid: e.uuid,
    event: e.name,
    properties: e.properties,
    timestamp: toClickHouseDateTimeUs(e.timestampUs),
    team_id: teamId,
    distinct_id: e.distinctId,
    elements_chain: e.elementsChain,
    created_at: createdAt,
    person_id: NIL_UUID,
  })
}

/** Bytes from a line's end ('\n') back to the start of its person_id value: `<uuid>"}\n`. */
const PERSON_ID_FROM_END = NIL_UUID.length + 2

/**
 * Writes person ids into encoded rows in place: `personIds[i]` into the i-th line (undefined
 * leaves it). The uuid has a fixed length, so no row moves.
 */
export function setPersonIds(body: Buffer, personIds: readonly (string | undefined)[]): void {
  let start = 0
  for (const personId of personIds) {
    const end = body.indexOf(0x0a, start)
    if (end < 0) throw new Error('fewer rows than person ids')
    if (personId !== undefined) {
      if (body[end - 1] !== 0x7d || body[end - 2] !== 0x22) throw new Error('a row does not end in its person_id')
      body.write(personId, end - PERSON_ID_FROM_END, 'latin1')
    }
    start = end + 1
  }
}

const TIMESTAMP_FIELD = Buffer.from('"timestamp":"')
/** `YYYY-MM-DD hh:mm:ss.ffffff` */
const TIMESTAMP_LENGTH = 26

/**
 * The timestamp of the encoded row starting at `start`, in epoch ms, read without parsing the
 * row: string values in a row have their quotes escaped, so the field's key is found as is.
 */
export function rowTimestampMs(body: Buffer, start: number): number | undefined {
  const at = body.indexOf(TIMESTAMP_FIELD, start)
  if (at < 0) return undefined
  const text = body.toString('latin1', at + TIMESTAMP_FIELD.length, at + TIMESTAMP_FIELD.length + TIMESTAMP_LENGTH)
  const ms = Date.parse(`${text.replace(' ', 'T').slice(0, 23)}Z`)
  return Number.isNaN(ms) ? undefined : ms
}

/** Where each of the first `count` rows of `body` starts. */
export function rowStarts(body: Buffer, count: number): number[] {
  const starts: number[] = []
  let start = 0
  for (let i = 0; i < count && start < body.length; i++) {
    starts.push(start)
    const end = body.indexOf(0x0a, start)
    if (end < 0) break
    start = end + 1
  }
  return starts
}
