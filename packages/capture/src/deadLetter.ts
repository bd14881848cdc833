import { randomUUID } from 'node:crypto'
import { NIL_UUID, toClickHouseDateTime, type DeadLetterRow } from '@burrow/clickhouse'
import { isUuid } from '@burrow/core'

/** The fields of an event a dead letter names, whatever stage it failed at. */
export interface DeadLetterSubject {
  uuid: string
  event: string
  distinctId: string
  teamId: number
  ip: string
}

/** A dead letter keeping `rawPayload`: the event as the client sent it, or the row ClickHouse refused. */
export function deadLetter(
  subject: DeadLetterSubject,
  rawPayload: string,
  failure: { location: string; reason: string; error: string },
): DeadLetterRow {
  const now = toClickHouseDateTime(Date.now())
  return {
    id: randomUUID(),
    // A uuid ClickHouse cannot parse would get the dead letter itself refused.
    event_uuid: isUuid(subject.uuid) ? subject.uuid : NIL_UUID,
    // Lone surrogates would get the dead letter itself refused; raw_payload keeps them as escapes.
    event: subject.event.toWellFormed(),
    properties: '{}',
    distinct_id: subject.distinctId.toWellFormed(),
    team_id: subject.teamId,
    elements_chain: '',
    created_at: now,
    ip: subject.ip,
    site_url: '',
    now,
    raw_payload: rawPayload,
    error_timestamp: now,
    error_location: failure.location,
    error: failure.error,
    tags: [failure.reason],
  }
}

/** The JSON of a client's event for a dead letter; never throws. */
export function rawPayloadOf(raw: unknown): string {
  try {
    return JSON.stringify(raw) ?? ''
  } catch (err) {
    return `unserialisable payload: ${String(err)}`
  }
}
