/** An event as a transformation sees it: the stored row's fields a plugin may read and change. */
export interface PluginEvent {
  uuid: string
  team_id: number
  event: string
  distinct_id: string
  properties: Record<string, unknown>
  /** ISO 8601. */
  timestamp: string
}

/**
 * A transformation: the event to keep (changed or not), or null to drop it. The built-ins change
 * the event they are given in place, and only once nothing can fail any more, so that a failure
 * leaves the event as it was; a plugin that may fail after changing it is marked (the runner
 * then gives it a copy).
 */
export type Transformation = (event: PluginEvent) => PluginEvent | null | undefined
