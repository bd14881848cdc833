import type { SharedCache } from '@burrow/cache'
import type { QueryStatus } from '@burrow/contracts'

/** How long an async query's status (and its results) can be polled. */
export const STATUS_TTL_SECONDS = 600

const statusKey = (projectId: number, id: string) => `query_status:${projectId}:${id}`

/** Async queries' statuses, in the shared cache so that any server answers the poll. */
export class QueryStatusStore {
  constructor(private readonly cache: SharedCache) {}

  async get(projectId: number, id: string): Promise<QueryStatus | undefined> {
    const text = await this.cache.get(statusKey(projectId, id))
    return text === undefined ? undefined : (JSON.parse(text) as QueryStatus)
  }

  async put(status: QueryStatus): Promise<void> {
    await this.cache.set(statusKey(status.team_id, status.id), JSON.stringify(status), STATUS_TTL_SECONDS)
  }

  async delete(projectId: number, id: string): Promise<void> {
    await this.cache.delete(statusKey(projectId, id))
  }
}

/** A status just created: picked up now, not complete. */
export function pendingStatus(projectId: number, id: string, now: Date): QueryStatus {
  return {
    id,
    query_async: true,
    team_id: projectId,
    error: false,
    complete: false,
    error_message: null,
    results: null,
    pickup_time: now.toISOString(),
    start_time: now.toISOString(),
    end_time: null,
    expiration_time: new Date(now.getTime() + STATUS_TTL_SECONDS * 1000).toISOString(),
    query_progress: null,
  }
}
