import { randomUUID } from 'node:crypto'
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
import { personWriteCounts } from './personWriteCounts'
import { creationProperties, decidePersonUpdate, type PersonOps } from './personUpdate'
import { WrittenPersons, type Watch } from './writtenPersons'

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

const changesProperties = (intent: PersonChanges): boolean =>
  intent.set !== undefined || intent.setOnce !== undefined || intent.unset !== undefined || intent.softSet !== undefined

export interface PersonStageOptions {
  /** Distinct ids whose person is remembered. */
  cacheEntries?: number
  /** Persons whose properties are remembered as last written or read (see WrittenPersons). */
  writtenEntries?: number
  /** How long a remembered person is believed without news (see WrittenPersonsOptions.maxAgeMs). */
  writtenMaxAgeMs?: number
}

/** What one project's part of a batch has done so far. */
interface TeamBatch {
  teamId: number
  writes: PersonWrites
  /** Open while the batch runs: what it remembers of persons someone else wrote meanwhile is not kept. */
  watch: Watch
  /** Whether what is remembered of persons may settle a change without PostgreSQL. */
  useMemory: boolean
  /** Persons a merge or identification wrote: their filtered values are written too, as PostHog does. */
  merged: Set<number>
  /** The persons' properties as PostgreSQL answered them in this batch, or as this server remembers them. */
  stored: Map<number, Record<string, unknown>>
  /** The persons whose properties this batch had to read. */
  read: Set<number>
}

/**
 * Gives each event of a batch its person, as PostHog's person processing does: creates the
 * persons of new distinct ids, merges on `$identify`/`$create_alias`, applies `$set`,
 * `$set_once` and `$unset`, and writes the person ids into the rows. PostgreSQL holds the
 * persons; what changed is copied to ClickHouse. Lookups are one query per batch and project,
 * and known distinct ids are answered from memory. Each person is written at most once per
 * batch, and only when something changes as PostHog decides it (PostHog's filtered properties
 * alone do not write a person); the persons this server last wrote or read are remembered, so
 * that changes they already hold cost no round trip either.
 *
 * Every step can run again with the same result, which is what the spool needs: a batch that
 * fails here stays in the spool and is processed again.
 */
export class PersonStage {
  private readonly known: DistinctIdCache
  private readonly written: WrittenPersons
  /** Names this server in its announcements of persons written, which it need not hear back. */
  private readonly origin = randomUUID()
  private readonly counts = personWriteCounts
  /** Group types known to be registered, per project. */
  private readonly groupTypes = new Map<number, Set<string>>()

  constructor(
    private readonly deps: PersonStageDeps,
    options: PersonStageOptions = {},
  ) {
    this.known = new DistinctIdCache(options.cacheEntries ?? 200_000)
    // A posthog-js person's properties take a few kilobytes: some tens of megabytes at most.
    this.written = new WrittenPersons({ maxEntries: options.writtenEntries ?? 10_000, maxAgeMs: options.writtenMaxAgeMs ?? 60_000 })
    deps.cache.onInvalidation((key) => {
      this.known.forgetKey(key)
      const written = personsCore.parsePersonsWrittenKey(key)
      if (written && written.origin !== this.origin) this.written.forget(written.projectId, written.personIds)
    })
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
    // What is remembered of persons is believed only while other servers' announcements of
    // their writes can reach this one.
    const useMemory = this.deps.cache.connected()
    if (!useMemory) this.written.clear()
    const batch: TeamBatch = {
      teamId,
      writes: persons.emptyWrites(),
      watch: this.written.watch(),
      useMemory,
      merged: new Set(),
      stored: new Map(),
      read: new Set(),
    }
    if (!useMemory) batch.watch.all = true
    try {
      await this.processPersons(batch, active)
    } finally {
      this.written.end(batch.watch)
    }
  }

  private async processPersons(batch: TeamBatch, active: readonly Row[]): Promise<void> {
    const { teamId, writes } = batch
    const warnings: IngestionWarningRow[] = []
    const mapping = await this.lookUp(batch, active)

    // New distinct ids get a person now, unless a merge event is where they first appear: the
    // merge links them to the other id's person instead of creating one to merge away.
    // A new person is as old as the first event of its distinct id, and holds what that event
    // sets, as PostHog creates it: the filtered values included.
    const seen = new Set<string>()
    const toCreate: NewPerson[] = []
    const firstRows = new Map<string, Row>()
    for (const row of active) {
      const { intent } = row
      for (const id of distinctIdsOf(intent)) {
        if (seen.has(id)) continue
        seen.add(id)
        if (mapping.has(id) || intent.mergeWith !== undefined) continue
        toCreate.push({ distinctId: id, createdAt: createdAtOf(row), properties: withoutNul(creationProperties(intent)) })
        firstRows.set(id, row)
      }
    }
    // The rows whose changes a person's creation holds (not those of an id another server created first).
    const applied = new Set<Row>()
    for (const id of await this.create(batch, toCreate, mapping)) applied.add(firstRows.get(id)!)

    for (const row of active) {
      if (row.intent.mergeWith !== undefined) await this.merge(batch, row, mapping, warnings)
    }

    await this.updateProperties(batch, active, mapping, applied)

    for (const row of active) row.frame[row.index] = mapping.get(row.intent.distinctId)?.uuid
    this.counts.written += writes.persons.length + writes.deletedPersons.length
    await this.announceWritten(batch)
    // A failure here (ClickHouse unavailable) fails the batch, which the consumer tries again.
    await personsCore.copyPersonWrites(this.deps, writes)
    await ingestionWarnings.insertIngestionWarnings(this.deps.ch, warnings)
    for (const [distinctId, ref] of mapping) this.known.set(teamId, distinctId, ref)
    await personsCore.announceMovedDistinctIds(this.deps, writes)
  }

  /**
   * Tells the other servers which persons this batch wrote, so that they forget what they
   * remember of them. Sent as soon as PostgreSQL has them: a batch tried again after a failure
   * later on finds them written and writes nothing, so it would announce nothing.
   */
  private async announceWritten({ teamId, writes }: TeamBatch): Promise<void> {
    // A person just created (version 0) is in no other server's memory.
    const ids = new Set([...writes.persons.filter((p) => p.version > 0), ...writes.deletedPersons].map((p) => p.id))
    if (ids.size === 0) return
    try {
      await this.deps.cache.publishInvalidation(personsCore.personsWrittenKey(teamId, [...ids], this.origin))
    } catch (err) {
      // Unreachable, Redis keeps no server's memory in sync: each believes what it remembers no
      // longer than WrittenPersonsOptions.maxAgeMs, and not at all while it cannot reach Redis.
      // The cache logs its outages; a failure while it answers is worth a line.
      if (this.deps.cache.connected()) this.deps.log(`persons: announcing ${ids.size} written persons failed: ${String(err)}`)
    }
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

  /**
   * The persons of the rows' distinct ids: from memory, the rest in one query, which also reads
   * the properties of those whose events change them.
   */
  private async lookUp(batch: TeamBatch, rows: readonly Row[]): Promise<Map<string, PersonRef>> {
    const mapping = new Map<string, PersonRef>()
    const unknown = new Set<string>()
    const withProperties = new Set<string>()
    for (const { intent } of rows) {
      for (const id of distinctIdsOf(intent)) {
        if (mapping.has(id) || unknown.has(id)) continue
        const ref = this.known.get(batch.teamId, id)
        if (ref) mapping.set(id, ref)
        else unknown.add(id)
      }
      if (changesProperties(intent) && unknown.has(intent.distinctId)) withProperties.add(intent.distinctId)
    }
    await this.lookUpInto(batch, mapping, [...unknown], [...withProperties])
    return mapping
  }

  private async lookUpInto(batch: TeamBatch, mapping: Map<string, PersonRef>, ids: string[], withProperties: string[]): Promise<void> {
    for (const [id, found] of await persons.lookUpPersons(this.deps.sql, batch.teamId, ids, withProperties)) {
      mapping.set(id, { id: found.id, uuid: found.uuid })
      if (found.properties) this.read(batch, found.id, found.properties)
    }
  }

  /** Creates the persons; answers the distinct ids whose person this call made (not another server). */
  private async create(batch: TeamBatch, newPersons: NewPerson[], mapping: Map<string, PersonRef>): Promise<string[]> {
    if (newPersons.length === 0) return []
    const created = await persons.createPersons(this.deps.sql, batch.teamId, newPersons)
    for (const [id, ref] of created.refs) mapping.set(id, ref)
    addWrites(batch.writes, created.writes)
    this.wrote(batch, created.writes)
    return created.writes.distinctIds.map((d) => d.distinct_id)
  }

  private async merge(batch: TeamBatch, row: Row, mapping: Map<string, PersonRef>, warnings: IngestionWarningRow[]): Promise<void> {
    const { teamId, writes } = batch
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
        this.wrote(batch, outcome.writes)
        for (const p of outcome.writes.persons) batch.merged.add(p.id)
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

  /** Properties PostgreSQL answered: what the batch decides against, and what this server remembers. */
  private remember(batch: TeamBatch, personId: number, properties: Record<string, unknown>): void {
    batch.stored.set(personId, properties)
    this.written.remember(batch.watch, batch.teamId, personId, properties)
  }

  private read(batch: TeamBatch, personId: number, properties: Record<string, unknown>): void {
    batch.read.add(personId)
    this.remember(batch, personId, properties)
  }

  /** What a statement wrote is what PostgreSQL now holds: other statements in flight must not remember older reads. */
  private wrote(batch: TeamBatch, written: Pick<PersonWrites, 'persons' | 'deletedPersons'>): void {
    this.written.forget(
      batch.teamId,
      [...written.persons, ...written.deletedPersons].map((p) => p.id),
      batch.watch,
    )
    for (const p of written.deletedPersons) batch.stored.delete(p.id)
    for (const p of written.persons) this.remember(batch, p.id, p.properties)
  }

  /**
   * Decides, for each person, whether its events of the batch (but the one its creation held)
   * write it, as PostHog does (see decidePersonUpdate), and writes those that change in one
   * statement. A person is decided against its properties as this batch read them or as this
   * server remembers them: a person that holds every value already (or differs only in PostHog's
   * filtered properties) costs no statement at all. A person merged away or deleted by another
   * server meanwhile is looked up again.
   */
  private async updateProperties(
    batch: TeamBatch,
    rows: readonly Row[],
    mapping: Map<string, PersonRef>,
    applied: Set<Row>,
  ): Promise<void> {
    const { teamId, writes } = batch
    for (let attempt = 0; attempt < 3; attempt++) {
      const events = new Map<number, PersonOps[]>()
      for (const row of rows) {
        const { intent } = row
        if (applied.has(row) || !changesProperties(intent)) continue
        const person = mapping.get(intent.distinctId)
        if (!person) continue
        const list = events.get(person.id)
        if (list) list.push(intent)
        else events.set(person.id, [intent])
      }
      const unread: number[] = []
      for (const id of events.keys()) {
        if (batch.stored.has(id)) continue
        const known = batch.useMemory ? this.written.get(teamId, id) : undefined
        if (known === undefined) unread.push(id)
        else batch.stored.set(id, known)
      }
      const read = await persons.propertiesOfPersons(this.deps.sql, teamId, unread)
      for (const [id, properties] of read) this.read(batch, id, properties)
      const missing = unread.filter((id) => !read.has(id))

      const toWrite = new Map<number, PropertyChange>()
      for (const [id, ops] of events) {
        const stored = batch.stored.get(id)
        if (!stored) continue
        const { outcome, change } = decidePersonUpdate(stored, ops, { merged: batch.merged.has(id) })
        if (!batch.read.has(id) && outcome !== 'changed') this.counts.settledInMemory++
        else this.counts.sentToPostgres++
        // PostgreSQL cannot hold U+0000, which events may carry: it becomes U+FFFD, as in PostHog.
        if (outcome === 'changed') {
          toWrite.set(id, { set: withoutNul(change.set), setOnce: withoutNul(change.setOnce), unset: change.unset.map(replaceNul) })
        }
      }
      const result = await persons.updatePersonProperties(this.deps.sql, toWrite)
      writes.persons.push(...result.updated)
      this.wrote(batch, { persons: result.updated, deletedPersons: [] })
      for (const p of result.unchanged) this.read(batch, p.id, p.properties)
      missing.push(...result.missing)
      if (missing.length === 0) return

      this.written.forget(teamId, missing)
      const gone = new Set(missing)
      for (const id of gone) batch.stored.delete(id)
      const stale = [...mapping].filter(([, ref]) => gone.has(ref.id)).map(([id]) => id)
      for (const id of stale) {
        mapping.delete(id)
        this.known.forget(teamId, id)
      }
      await this.lookUpInto(batch, mapping, stale, stale)
      const lost = stale.filter((id) => !mapping.has(id))
      await this.create(
        batch,
        lost.map((distinctId) => ({ distinctId, createdAt: new Date() })),
        mapping,
      )
      // Only the persons that were gone need their changes again, those their creation held included.
      rows = rows.filter((r) => stale.includes(r.intent.distinctId))
      for (const row of rows) applied.delete(row)
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
