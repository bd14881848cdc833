import { readdir, rm } from 'node:fs/promises'
import path from 'node:path'
import type { EventSpool } from '@burrow/ingestion'
import type { SegmentWriter, SpoolWriterOptions } from '@burrow/spool'

export type CreateWriter = (options: SpoolWriterOptions) => SegmentWriter

/** Lane 0 is the spool directory itself (the only lane when capture runs in the main thread); lane i is lane-i in it. */
export function laneDir(root: string, lane: number): string {
  return lane === 0 ? root : path.join(root, `lane-${lane}`)
}

/** For a lane no thread writes to any more: its consumer stores what an earlier run left, and nothing is added. */
const drainOnly: CreateWriter = (options) => ({
  activeSeq: options.firstSeq,
  prepare: () => undefined,
  append: () => Promise.reject(new Error('no thread writes to this spool lane')),
  close: async () => undefined,
})

/**
 * Opens the spool's lanes: one per writer given, and, after a run with more capture threads
 * than this one, the lanes left over, so that their rows are stored too (an empty one is removed).
 */
export async function openSpoolLanes(
  root: string,
  writers: Array<CreateWriter | undefined>,
  open: (dir: string, createWriter: CreateWriter | undefined) => Promise<EventSpool>,
): Promise<EventSpool[]> {
  const spools: EventSpool[] = []
  for (const [lane, createWriter] of writers.entries()) spools.push(await open(laneDir(root, lane), createWriter))
  const names = await readdir(root).catch(() => [] as string[])
  for (const name of names) {
    const lane = /^lane-(\d+)$/.exec(name)?.[1]
    if (lane === undefined || Number(lane) < writers.length) continue
    const dir = path.join(root, name)
    const left = (await readdir(dir)).filter((file) => file.endsWith('.seg'))
    if (left.length === 0) await rm(dir, { recursive: true, force: true })
    else spools.push(await open(dir, drainOnly))
  }
  return spools
}
