import { randomUUID } from 'node:crypto'
import { eventDefinitions, projects } from '@burrow/postgres'
import type { CoreDeps } from './deps'

/**
 * Collects the event names seen by ingestion and writes them to event_definitions once per
 * flush (one statement for all names), instead of a database write per event.
 */
export class EventDefinitionTracker {
  private pending = new Map<string, { projectId: number; name: string; lastSeenMs: number }>()

  constructor(private readonly deps: CoreDeps) {}

  record(projectId: number, name: string, timestampMs: number): void {
    const key = `${projectId}\u0000${name}`
    const seen = this.pending.get(key)
    if (!seen) this.pending.set(key, { projectId, name, lastSeenMs: timestampMs })
    else if (timestampMs > seen.lastSeenMs) seen.lastSeenMs = timestampMs
  }

  /** Writes what was collected; on failure the sightings are kept for the next flush. */
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
      for (const [key, s] of batch) {
        const newer = this.pending.get(key)
        if (!newer || newer.lastSeenMs < s.lastSeenMs) this.pending.set(key, s)
      }
      throw err
    }
  }
}
