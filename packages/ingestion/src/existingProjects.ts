import { projects, type Sql } from '@burrow/postgres'
import type { FrameContent } from '@burrow/spool'

/**
 * The frames whose project still exists. Deleting a project deletes its stored events, so the
 * events it acknowledged just before, still in the spool, are dropped rather than stored after
 * it is gone. Frames of the older format name no project (0) and are kept.
 */
export async function framesOfExistingProjects(sql: Sql, frames: FrameContent[]): Promise<FrameContent[]> {
  const teamIds = [...new Set(frames.map((f) => f.teamId))].filter((id) => id !== 0)
  const existing = await projects.existingProjectIds(sql, teamIds)
  if (existing.size === teamIds.length) return frames
  return frames.filter((f) => f.teamId === 0 || existing.has(f.teamId))
}
