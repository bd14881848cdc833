import type { SharedCache } from '@burrow/cache'
import { groups as groupsTable, toClickHouseDateTime, type ClickHouse } from '@burrow/clickhouse'
import { featureFlags, withoutNul } from '@burrow/core'
import { groups, groupTypes, isTransientError, type GroupRow, type GroupUpdate, type Pool } from '@burrow/postgres'
import { rowStarts, rowTimestampMs } from '@burrow/capture'
import type { FrameContent, PersonChanges } from '@burrow/spool'
import { withGroupColumns } from './groupColumns'

export interface GroupStageDeps {
  sql: Pool
  ch: ClickHouse
  cache: SharedCache
  log: (msg: string) => void
}

/** Group type → index, per project. */
type Mapping = Map<string, number>

/**
 * How long a project's mapping is trusted: a group type deleted through the API frees its index,
 * so a server reads the mapping again after this (PostHog's ingestion caches it for a while too).
 */
const MAPPING_TTL_MS = 60_000

/**
 * Gives a batch's events their groups, as PostHog's ingestion does: each group type an event
 * names gets its index (the first five of a project), the event gets `$group_<index>` = key for
 * each of its groups, and a `$groupidentify` creates or updates its group in PostgreSQL, copied
 * to ClickHouse's `groups`. Running a batch again gives the same result, as the spool needs.
 */
export class GroupStage {
  private readonly mappings = new Map<number, { mapping: Mapping; readAt: number }>()
  /** Types a project could not register (it has five already), so that they are not tried again per batch. */
  private readonly unmapped = new Map<number, Set<string>>()

  constructor(private readonly deps: GroupStageDeps) {}

  /** The frames with the rows' group properties written in; frames without groups are the same objects. */
  async assign(frames: readonly FrameContent[]): Promise<FrameContent[]> {
    const byTeam = new Map<number, FrameContent[]>()
    for (const frame of frames) {
      if (!frame.persons || frame.teamId === 0 || !frame.persons.some((p) => typeof p !== 'string' && (p.groups || p.groupSet))) continue
      let list = byTeam.get(frame.teamId)
      if (!list) byTeam.set(frame.teamId, (list = []))
      list.push(frame)
    }
    if (byTeam.size === 0) return [...frames]
    const replaced = new Map<FrameContent, FrameContent>()
    for (const [teamId, teamFrames] of byTeam) {
      try {
        const mapping = await this.mappingFor(teamId, teamFrames)
        for (const frame of teamFrames) {
          const body = withGroupColumns(frame.body, frame.persons!, mapping)
          if (body !== frame.body) replaced.set(frame, { ...frame, body })
        }
        await this.storeGroups(teamId, teamFrames, mapping)
      } catch (err) {
        // As for persons: an outage holds the batch in the spool, any other failure must not
        // stop every later event, so these events are stored without their groups.
        if (isTransientError(err)) throw err
        this.deps.log(`groups: storing events of project ${teamId} without their groups: ${(err as Error)?.stack ?? String(err)}`)
      }
    }
    return frames.map((frame) => replaced.get(frame) ?? frame)
  }

  /** The project's type indexes, registering the types the frames name that have none yet. */
  private async mappingFor(teamId: number, frames: readonly FrameContent[]): Promise<Mapping> {
    const cached = this.mappings.get(teamId)
    const current = cached !== undefined && Date.now() - cached.readAt < MAPPING_TTL_MS
    let mapping = current ? cached.mapping : undefined
    if (!current) this.unmapped.delete(teamId)
    const unmapped = this.unmapped.get(teamId)
    const fresh = new Set<string>()
    for (const intent of intentsOf(frames)) {
      for (const type of [...Object.keys(intent.groups ?? {}), ...(intent.groupSet ? [intent.groupSet.type] : [])]) {
        if (!mapping?.has(type) && !unmapped?.has(type)) fresh.add(type)
      }
    }
    if (mapping && fresh.size === 0) return mapping
    if (fresh.size > 0 && (await groupTypes.registerGroupTypes(this.deps.sql, teamId, [...fresh]))) {
      await featureFlags.flagsChanged(this.deps, teamId)
    }
    mapping = new Map((await groupTypes.groupTypeMapping(this.deps.sql, teamId)).map((m) => [m.group_type, m.group_type_index]))
    this.mappings.set(teamId, { mapping, readAt: Date.now() })
    const missing = [...fresh].filter((type) => !mapping.has(type))
    if (missing.length > 0) this.unmapped.set(teamId, new Set([...(unmapped ?? []), ...missing]))
    return mapping
  }

  /** Folds the `$groupidentify` events per group in event order and writes each group once. */
  private async storeGroups(teamId: number, frames: readonly FrameContent[], mapping: Mapping): Promise<void> {
    const updates = new Map<string, GroupUpdate>()
    for (const frame of frames) {
      let starts: number[] | undefined
      for (const [row, intent] of frame.persons!.entries()) {
        if (typeof intent === 'string' || !intent.groupSet) continue
        const index = mapping.get(intent.groupSet.type)
        if (index === undefined || intent.groupSet.key.length > groups.MAX_GROUP_KEY_LENGTH) continue
        starts ??= rowStarts(frame.body, frame.persons!.length)
        const ms = rowTimestampMs(frame.body, starts[row] ?? 0)
        const at = new Date(ms === undefined ? Date.now() : Math.min(ms, Date.now()))
        const id = `${index}\u0000${intent.groupSet.key}`
        const update = updates.get(id)
        const set = withoutNul(intent.groupSet.set)
        if (update) {
          Object.assign(update.set, set)
          if (at < update.createdAt) update.createdAt = at
        } else {
          updates.set(id, {
            groupTypeIndex: index,
            groupKey: intent.groupSet.key,
            set: Object.assign(Object.create(null) as Record<string, unknown>, set),
            createdAt: at,
          })
        }
      }
    }
    const written = await groups.upsertGroups(this.deps.sql, teamId, [...updates.values()])
    await groupsTable.insertGroups(this.deps.ch, written.map(groupCopy))
  }
}

function* intentsOf(frames: readonly FrameContent[]): Generator<PersonChanges> {
  for (const frame of frames) for (const intent of frame.persons ?? []) if (typeof intent !== 'string') yield intent
}

function groupCopy(row: GroupRow) {
  return {
    team_id: row.project_id,
    group_type_index: row.group_type_index,
    group_key: row.group_key,
    group_properties: JSON.stringify(row.group_properties),
    created_at: toClickHouseDateTime(row.created_at.getTime()),
    version: row.version,
  }
}
