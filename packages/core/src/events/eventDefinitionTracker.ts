import { randomUUID } from 'node:crypto'
import { eventDefinitions, isTransientError, projects } from '@burrow/postgres'
import type { CoreDeps } from '../deps'

/** PostHog's limit on an event definition's name; a longer name's events get no definition. */
export const MAX_DEFINITION_NAME_LENGTH = 400

/**
 * Collects the event names seen by ingestion and writes them to event_definitions once per
 * flush (one statement for all names), instead of a database write per event.
 */
export class EventDefinitionTracker {
  private pending = new Map<string, { projectId: number; name: string; lastSeenMs: number }>()

  constructor(private readonly deps: CoreDeps) {}

  record(projectId: number, name: string, timestampMs: number): void {
    if (name.length > MAX_DEFINITION_NAME_LENGTH) return
    const key = `${projectId}\u0000${name}`
    const seen = this.pending.get(key)
    if (!seen) this.pending.set(key, { projectId, name, lastSeenMs: timestampMs })
    else if (timestampMs > seen.lastSeenMs) seen.lastSeenMs = timestampMs
  }

  /**
   * Writes what was collected. While the database is unavailable the sightings are kept for the
   * next flush; a failure of their content drops them, or every later flush would fail with it.
   */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return
    const batch = this.pending
    this.pending = new Map()
    try {
      const sightings = [...batch.values()].map((s) => ({
        id: randomUUID(),
        projectId: s.projectId,
        name: s.name,
        lastSeenAt: new Date(s.lastSeenMs),
      }))
      await eventDefinitions.upsertEventSightings(this.deps.sql, sightings)
      await projects.markProjectsIngested(this.deps.sql, [...new Set(sightings.map((s) => s.projectId))])
    } catch (err) {
      if (!isTransientError(err)) throw err
      for (const [key, s] of batch) {
        const newer = this.pending.get(key)
        if (!newer || newer.lastSeenMs < s.lastSeenMs) this.pending.set(key, s)
      }
      throw err
    }
  }
}
