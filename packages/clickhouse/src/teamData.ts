import type { ClickHouse } from './connect'

/** Every table that holds rows of a team (project). */
const TEAM_TABLES = [
  'events',
  'events_dead_letter_queue',
  'plugin_log_entries',
  'person',
  'person_distinct_id2',
  'cohortpeople',
  'ingestion_warnings',
  'groups',
  'event_daily_counts',
] as const

/** Removes everything a deleted project left in ClickHouse. */
export async function deleteTeamData(ch: ClickHouse, teamId: number): Promise<void> {
  for (const table of TEAM_TABLES) {
    await ch.writer.command({
      query: `ALTER TABLE ${ch.layout.alterTarget(table)} DELETE WHERE team_id = {team_id:Int64}`,
      query_params: { team_id: teamId },
    })
  }
}
