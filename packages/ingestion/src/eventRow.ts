import { events as eventsTable, NIL_UUID, toClickHouseDateTimeUs } from '@burrow/clickhouse'
import type { DraftEvent } from './pipeline'

/** An event that went through the pipeline as its JSONEachRow line for the events table. */
export function encodeEvent(e: DraftEvent, teamId: number, createdAt: string): string {
  return eventsTable.encodeEventRow({
    uuid: e.uuid,
    event: e.name,
    properties: JSON.stringify(e.properties),
    timestamp: toClickHouseDateTimeUs(e.timestampUs),
    team_id: teamId,
    distinct_id: e.distinctId,
    elements_chain: e.elementsChain,
    created_at: createdAt,
    person_id: NIL_UUID,
  })
}
