import type { SharedCache } from '@burrow/cache'
import { ingestionWarnings, toClickHouseDateTime, type ClickHouse, type IngestionWarningRow } from '@burrow/clickhouse'
import { featureFlags, persons as personsCore, replaceNul, withoutNul } from '@burrow/core'
import {
  groupTypes,
  isTransientError,
  persons,
  type NewPerson,
  type Pool,
  type PersonRef,
  type PersonWrites,
  type PropertyChange,
} from '@burrow/postgres'
import { rowStarts, rowTimestampMs, setPersonIds } from '@burrow/capture'
import type { FrameContent, PersonChanges, PersonIntent } from '@burrow/spool'
import { yieldToEventLoop } from '../eventLoop'
import { DistinctIdCache } from './distinctIdCache'
import { mergeOptionsOf, planMerge, retriesMerge } from './mergePolicy'
import { firstPropertyChange, foldPropertyChange } from './propertyChanges'

export interface PersonStageDeps {
  sql: Pool
  ch: ClickHouse
  cache: SharedCache
  log: (msg: string) => void
}

interface Row {
  intent: PersonChanges
  /** Where the row's person id goes: its frame's list of person ids, at `index`. */
  frame: (string | undefined)[]
  index: number
  /** The row's frame, for the row's timestamp when it makes a new person. */
  source: FrameRows
}

/** A frame's encoded rows; where each starts is found only if a row's timestamp is needed. */
interface FrameRows {
  body: Buffer
  count: number
  starts?: number[]
}

/**
 * Rows processed between yields to the event loop. Person processing costs a few microseconds
 * per row on the event loop; a whole batch at once held capture requests for 10–20 ms.
 */
const ROWS_PER_SLICE = 1000

/** The distinct ids an intent names: its own, and the one it merges with. */
const distinctIdsOf = (intent: PersonChanges): string[] =>
  intent.mergeWith === undefined ? [intent.distinctId] : [intent.distinctId, intent.mergeWith]

const asChanges = (intent: PersonIntent): PersonChanges => (typeof intent === 'string' ? { distinctId: intent } : intent)

/**
 * Gives each event of a batch its person, as PostHog's person processing does: creates the
 * persons of new distinct ids, merges on `$identify`/`$create_alias`, applies `$set`,
 * `$set_once` and `$unset`, and writes the person ids into the rows. PostgreSQL holds the
 * persons; what changed is copied to ClickHouse. Lookups are one query per batch and project,
 * and known distinct ids are answered from memory, so a batch of returning users costs no
 * database round trip beyond its property updates.
 *
 * Every step can run again with the same result, which is what the spool needs: a batch that
 * fails here stays in the spool and is processed again.
 */
export class PersonStage {
  private readonly known: DistinctIdCache
  /** Group types known to be registered, per project. */
  private readonly groupTypes = new Map<number, Set<string>>()

  constructor(
    private readonly deps: PersonStageDeps,
    options: { cacheEntries?: number } = {},
  ) {
    this.known = new DistinctIdCache(options.cacheEntries ?? 200_000)
    deps.cache.onInvalidation((key) => this.known.forgetKey(key))
  }

  /**
   * Processes the persons of a batch's frames and writes their ids into the frames' rows. The
   * frames go in slices of about ROWS_PER_SLICE rows, in order, as consecutive batches would.
   */
  async assign(frames: readonly FrameContent[]): Promise<void> {
    for (let start = 0; start < frames.length;) {
      let end = start
      let rows = 0
      while (end < frames.length && (end === start || rows + (frames[end]!.persons?.length ?? 0) <= ROWS_PER_SLICE)) {
        rows += frames[end]!.persons?.length ?? 0
        end++
      }
      await this.assignSlice(frames.slice(start, end))
      start = end
      if (start < frames.length) await yieldToEventLoop()
    }
  }

  private async assignSlice(frames: readonly FrameContent[]): Promise<void> {
    const byTeam = new Map<number, Row[]>()
    const ids: (string | undefined)[][] = []
    for (const frame of frames) {
      const frameIds = new Array<string | undefined>(frame.persons?.length ?? 0).fill(undefined)
      ids.push(frameIds)
      if (!frame.persons || frame.teamId === 0) continue
      let rows = byTeam.get(frame.teamId)
      if (!rows) byTeam.set(frame.teamId, (rows = []))
      const source: FrameRows = { body: frame.body, count: frame.persons.length }
      for (const [i, intent] of frame.persons.entries()) rows.push({ intent: asChanges(intent), frame: frameIds, index: i, source })
    }
    for (const [teamId, rows] of byTeam) {
      try {
        await this.processTeam(teamId, rows)
      } catch (err) {
        // An outage is waited out (the batch stays in the spool); any other failure would stop
        // every later event behind this batch, so the events are stored without their persons.
        if (isTransientError(err)) throw err
        this.deps.log(
          `persons: storing ${rows.length} events of project ${teamId} without persons: ${(err as Error)?.stack ?? String(err)}`,
        )
      }
    }
    frames.forEach((frame, i) => {
      if (frame.persons) setPersonIds(frame.body, ids[i]!)
    })
  }

  private async processTeam(teamId: number, rows: readonly Row[]): Promise<void> {
    await this.registerGroupTypes(teamId, rows)
    const active = rows.filter((r) => !r.intent.noPerson)
    if (active.length === 0) return
    const writes = persons.emptyWrites()
    const warnings: IngestionWarningRow[] = []
    const mapping = await this.lookUp(teamId, active)

    // New distinct ids get a person now, unless a merge event is where they first appear: the
    // merge links them to the other id's person instead of creating one to merge away.
    // A new person is as old as the first event of its distinct id.
    const seen = new Set<string>()
    const toCreate: NewPerson[] = []
    for (const row of active) {
      const { intent } = row
      for (const id of distinctIdsOf(intent)) {
        if (seen.has(id)) continue
        seen.add(id)
        if (!mapping.has(id) && intent.mergeWith === undefined) toCreate.push({ distinctId: id, createdAt: createdAtOf(row) })
      }
    }
    await this.create(teamId, toCreate, mapping, writes)

    for (const row of active) {
      if (row.intent.mergeWith !== undefined) await this.merge(teamId, row, mapping, writes, warnings)
    }

    await this.updateProperties(teamId, active, mapping, writes)

    for (const row of active) row.frame[row.index] = mapping.get(row.intent.distinctId)?.uuid
    // A failure here (ClickHouse unavailable) fails the batch, which the consumer tries again.
    await personsCore.copyPersonWrites(this.deps, writes)
    await ingestionWarnings.insertIngestionWarnings(this.deps.ch, warnings)
    for (const [distinctId, ref] of mapping) this.known.set(teamId, distinctId, ref)
    await personsCore.announceMovedDistinctIds(this.deps, writes)
  }

  /** Registers the group types the rows name that this server has not seen registered yet. */
  private async registerGroupTypes(teamId: number, rows: readonly Row[]): Promise<void> {
    let known = this.groupTypes.get(teamId)
    const fresh = new Set<string>()
    for (const { intent } of rows) for (const type of intent.groupTypes ?? []) if (!known?.has(type)) fresh.add(type)
    if (fresh.size === 0) return
    if (await groupTypes.registerGroupTypes(this.deps.sql, teamId, [...fresh])) await featureFlags.flagsChanged(this.deps, teamId)
    if (!known) this.groupTypes.set(teamId, (known = new Set()))
    for (const type of fresh) known.add(type)
  }

  /** The persons of the rows' distinct ids: from memory, the rest in one query. */
  private async lookUp(teamId: number, rows: readonly Row[]): Promise<Map<string, PersonRef>> {
    const mapping = new Map<string, PersonRef>()
    const unknown = new Set<string>()
    for (const { intent } of rows) {
      for (const id of distinctIdsOf(intent)) {
        if (mapping.has(id) || unknown.has(id)) continue
        const ref = this.known.get(teamId, id)
        if (ref) mapping.set(id, ref)
        else unknown.add(id)
      }
    }
    for (const [id, ref] of await persons.personsOfDistinctIds(this.deps.sql, teamId, [...unknown])) mapping.set(id, ref)
    return mapping
  }

  private async create(teamId: number, newPersons: NewPerson[], mapping: Map<string, PersonRef>, writes: PersonWrites): Promise<void> {
    if (newPersons.length === 0) return
    const created = await persons.createPersons(this.deps.sql, teamId, newPersons)
    for (const [id, ref] of created.refs) mapping.set(id, ref)
    addWrites(writes, created.writes)
  }

  private async merge(
    teamId: number,
    row: Row,
    mapping: Map<string, PersonRef>,
    writes: PersonWrites,
    warnings: IngestionWarningRow[],
  ): Promise<void> {
    const { distinctId, mergeWith: otherId } = row.intent as { distinctId: string; mergeWith: string }
    const options = mergeOptionsOf(row.intent, createdAtOf(row))
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await persons.mergeDistinctIds(this.deps.sql, teamId, {
          distinctId,
          otherId,
          decide: (state) => planMerge(state, options),
        })
        addWrites(writes, outcome.writes)
        mapping.set(distinctId, outcome.person)
        if (outcome.kind === 'refused') {
          // As PostHog tells its users: the other id's person is identified already.
          warnings.push({
            team_id: teamId,
            source: 'persons',
            type: 'cannot_merge_already_identified',
            details: JSON.stringify({ sourcePersonDistinctId: otherId, targetPersonDistinctId: distinctId }),
            timestamp: toClickHouseDateTime(Date.now()),
          })
          return
        }
        mapping.set(otherId, outcome.person)
        for (const moved of outcome.writes.distinctIds) mapping.set(moved.distinct_id, outcome.person)
        return
      } catch (err) {
        if (!retriesMerge(err, attempt)) throw err
      }
    }
  }

  /**
   * Folds each person's `$set`/`$set_once`/`$unset` in event order and applies them in one
   * statement. A person merged away or deleted by another server meanwhile is looked up again.
   */
  private async updateProperties(
    teamId: number,
    rows: readonly Row[],
    mapping: Map<string, PersonRef>,
    writes: PersonWrites,
  ): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const changes = new Map<number, PropertyChange>()
      for (const { intent } of rows) {
        if (!intent.set && !intent.setOnce && !intent.unset && !intent.softSet) continue
        const person = mapping.get(intent.distinctId)
        if (!person) continue
        // Keys like `__proto__` are ordinary property names here (see emptyPropertyChange).
        const change = changes.get(person.id)
        if (change) foldPropertyChange(change, intent)
        else changes.set(person.id, firstPropertyChange(intent))
      }
      // PostgreSQL cannot hold U+0000, which events may carry: it becomes U+FFFD, as in PostHog.
      for (const change of changes.values()) {
        change.set = withoutNul(change.set)
        change.setOnce = withoutNul(change.setOnce)
        change.softSet = withoutNul(change.softSet)
        change.unset = change.unset.map(replaceNul)
      }
      const { updated, missing } = await persons.updatePersonProperties(this.deps.sql, changes)
      writes.persons.push(...updated)
      if (missing.length === 0) return
      const gone = new Set(missing)
      const stale = [...mapping].filter(([, ref]) => gone.has(ref.id)).map(([id]) => id)
      for (const id of stale) {
        mapping.delete(id)
        this.known.forget(teamId, id)
      }
      for (const [id, ref] of await persons.personsOfDistinctIds(this.deps.sql, teamId, stale)) mapping.set(id, ref)
      const lost = stale.filter((id) => !mapping.has(id))
      await this.create(
        teamId,
        lost.map((distinctId) => ({ distinctId, createdAt: new Date() })),
        mapping,
        writes,
      )
      // Only the persons that were gone need their changes again.
      rows = rows.filter((r) => stale.includes(r.intent.distinctId))
    }
  }
}

function createdAtOf(row: Row): Date {
  const rows = row.source
  rows.starts ??= rowStarts(rows.body, rows.count)
  const ms = rowTimestampMs(rows.body, rows.starts[row.index] ?? 0)
  return ms === undefined ? new Date() : new Date(Math.min(ms, Date.now()))
}

function addWrites(into: PersonWrites, from: PersonWrites): void {
  into.persons.push(...from.persons)
  into.deletedPersons.push(...from.deletedPersons)
  into.distinctIds.push(...from.distinctIds)
  into.staticCohortMembers.push(...from.staticCohortMembers)
}
