import { toClickHouseDateTime, type DeadLetterRow, type IngestionWarningRow } from '@burrow/clickhouse'
import { ApiProblem, jsonNestsDeeperThan, MAX_JSON_DEPTH, problems } from '@burrow/contracts'
import { isDependencyUnavailable, type CoreDeps, type KeyGuessGuard, type ProjectTokenResolver } from '@burrow/core'
import { encodeFrame, type PersonIntent, type Sighting, type SpoolAppend } from '@burrow/spool'
import { withoutPersonalKey } from './credentials'
import { deadLetter, rawPayloadOf } from './deadLetter'
import { isCookieless, type CookielessSalts } from './cookieless'
import { assignCookielessVisits, type CookielessState } from './cookielessVisits'
import { decodeRequestBody } from './decode'
import { encodeEvent } from './eventRow'
import { keepLongNumericDistinctIds } from './longNumericIds'
import type { CaptureMetrics } from './metrics'
import { captureRequestFrom, type RawEvent } from './payload'
import { runPipeline, type IngestionWarning, type PipelineOutcome, type RequestContext } from './pipeline'
import { knownProject, projectForRequest } from './projectAuth'
import { INGESTION_STEPS, STEPS_AFTER_COOKIELESS, STEPS_TO_COOKIELESS } from './steps'
import { mayHoldLoneSurrogates, wellFormed } from './wellFormed'

/** What a personal API key sent with `project_id` needs to capture events into the project. */
const CAPTURE_SCOPE = 'project:write'

export interface CaptureInput {
  path: string
  query: URLSearchParams
  /** Lower-cased header names. */
  headers: Record<string, string>
  body: Buffer
  ip: string | undefined
}

export interface CaptureDeps {
  projects: ProjectTokenResolver
  spool: SpoolAppend
  /** Where dead letters and ingestion warnings of the pipeline go; each resolves once they are stored. */
  sink: {
    storeDeadLetters(letters: DeadLetterRow[]): Promise<void>
    storeIngestionWarnings(warnings: IngestionWarningRow[]): Promise<void>
  }
  metrics: CaptureMetrics
  /** DATA_DIR's free space above its reserve, which the spool's room includes: it tells a full disk from a full spool in the metrics. */
  disk?: { hasRoom(): boolean } | undefined
  maxDecompressedBytes: number
  log: CoreDeps['log']
  /** The daily salts of cookieless hashes; without them, cookieless events are dropped. */
  cookielessSalts?: CookielessSalts
  /** The sessions and identifies of stateful cookieless mode, shared by every instance; without it, mode 2 is stateless. */
  cookielessState?: CookielessState
  /** Slows and refuses addresses that keep sending keys that do not exist; without it, they are only answered 401. */
  keyGuesses?: KeyGuessGuard
  /**
   * The optional per-project quota of events a second: counts a request's events and answers
   * how long to wait when the project is over it (undefined: within). Absent: no quota.
   */
  eventQuota?: (projectId: number, events: number) => Promise<number | undefined>
}

function overQuota(retryAfterMs: number): ApiProblem {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000))
  return new ApiProblem('rate_limited', 'The project is over its quota of events per second. Send the request again later.', {
    headers: { 'retry-after': String(seconds) },
  })
}

export type CaptureResult = { status: number; body: unknown; headers?: Readonly<Record<string, string>> }

/** The answer to every capture request whose events are stored (or silently dropped). */
export const CAPTURE_ACCEPTED: CaptureResult = { status: 200, body: { status: 1 } }

/**
 * The most an event's stored row may hold, as PostHog's capture refuses events over 1 MB: one
 * such event would ride along in every list and export of its project.
 */
export const MAX_EVENT_BYTES = 1024 * 1024

/** Whether an encoded row is over MAX_EVENT_BYTES; its UTF-8 length is counted only when its characters could reach it. */
function tooBig(line: string): boolean {
  return line.length * 3 > MAX_EVENT_BYTES && Buffer.byteLength(line) > MAX_EVENT_BYTES
}

/** As PostHog's capture answers an event over its limit: the request is refused, so its client knows. */
const eventTooBig = () => new ApiProblem('request_too_large', `Event too big: an event may be at most ${MAX_EVENT_BYTES} bytes.`)

function parseJson(text: string): unknown {
  if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) throw problems.malformed(`the JSON is nested deeper than ${MAX_JSON_DEPTH} levels`)
  let value: unknown
  try {
    value = JSON.parse(keepLongNumericDistinctIds(text))
  } catch (err) {
    throw problems.malformed((err as Error).message, { cause: err })
  }
  return mayHoldLoneSurrogates(text) ? wellFormed(value) : value
}

/** The outcomes of a request with stateful cookieless events: their ids come from the shared state between the steps. */
async function statefulCookielessOutcomes(events: RawEvent[], ctx: RequestContext, state: CookielessState): Promise<PipelineOutcome[]> {
  const firstHalf = events.map((raw) => runPipeline(STEPS_TO_COOKIELESS, raw, ctx))
  const hashed = firstHalf.flatMap((o) => (o.kind === 'ok' ? [o.event] : []))
  try {
    await assignCookielessVisits(hashed, ctx.project.id, state)
  } catch (err) {
    throw problems.unavailable('The events could not be stored. Retry the request later.', { cause: err })
  }
  return firstHalf.map((o, i) => (o.kind === 'ok' ? runPipeline(STEPS_AFTER_COOKIELESS, events[i]!, ctx, o.event) : o))
}

/**
 * Handles one capture request: decode, authenticate, run each event through the pipeline,
 * append the rows to the spool. Answers `{"status": 1}` once they are on disk; events dropped
 * by the pipeline do not change the answer (the spec's silent drops).
 */
export async function handleCapture(input: CaptureInput, deps: CaptureDeps): Promise<CaptureResult> {
  try {
    const decoded = decodeRequestBody(input, { maxDecompressedBytes: deps.maxDecompressedBytes })
    const request = captureRequestFrom(parseJson(decoded.text), {
      path: input.path,
      query: input.query,
      form: decoded.form,
      authorization: input.headers.authorization,
    })
    const project = knownProject(request, deps.projects) ?? (await projectForRequest(request, deps, { scope: CAPTURE_SCOPE, ip: input.ip }))
    if (request.events.length === 0) return CAPTURE_ACCEPTED
    // Over its quota, the project's request is refused whole before anything is acknowledged: the client sends it again.
    if (deps.eventQuota) {
      const retryAfterMs = await deps.eventQuota(project.id, request.events.length)
      if (retryAfterMs !== undefined) {
        deps.metrics.captureRefused.inc({ reason: 'quota' })
        throw overQuota(retryAfterMs)
      }
    }
    withoutPersonalKey(request.events, request.token)

    const ctx: RequestContext = { project, ip: input.ip, nowMs: Date.now(), sentAtMs: request.sentAtMs }
    if (
      project.cookielessMode &&
      deps.cookielessSalts &&
      request.events.some((e) => isCookieless(e.distinct_id ?? e.$distinct_id, e.properties))
    ) {
      ctx.cookielessSalts = await deps.cookielessSalts.forNow(ctx.nowMs)
      ctx.cookielessStateful = project.cookielessMode === 2 && deps.cookielessState !== undefined
    }
    const outcomes = ctx.cookielessStateful ? await statefulCookielessOutcomes(request.events, ctx, deps.cookielessState!) : undefined
    const lines: string[] = []
    const intents: PersonIntent[] = []
    const latest = new Map<string, Sighting>()
    const letters = []
    const warnings: IngestionWarningRow[] = []
    const createdAt = toClickHouseDateTime(ctx.nowMs)
    const warn = (warning: IngestionWarning) =>
      warnings.push({
        team_id: project.id,
        source: 'capture',
        type: warning.type,
        details: JSON.stringify(warning.details),
        timestamp: createdAt,
      })
    for (const [i, raw] of request.events.entries()) {
      const outcome = outcomes ? outcomes[i]! : runPipeline(INGESTION_STEPS, raw, ctx)
      if (outcome.kind === 'drop') {
        deps.metrics.eventsDropped.inc({ reason: outcome.reason })
        if (outcome.warning) warn(outcome.warning)
        continue
      }
      const e = outcome.event
      const subject = { uuid: e.uuid, event: e.name, distinctId: e.distinctId, teamId: project.id, ip: input.ip ?? '' }
      if (outcome.kind === 'dlq') {
        letters.push(
          deadLetter(subject, rawPayloadOf(raw), { location: `ingestion:${outcome.step}`, reason: outcome.reason, error: outcome.error }),
        )
        continue
      }
      if (e.warnings) for (const warning of e.warnings) warn(warning)
      let line: string
      try {
        line = encodeEvent(e, project.id, createdAt)
      } catch (err) {
        letters.push(
          deadLetter(subject, rawPayloadOf(raw), { location: 'ingestion:encode_row', reason: 'unencodable_event', error: String(err) }),
        )
        continue
      }
      if (tooBig(line)) throw eventTooBig()
      lines.push(line)
      intents.push(e.person)
      const timestampMs = Math.floor(e.timestampUs / 1000)
      const seen = latest.get(e.name)
      if (!seen) latest.set(e.name, [project.id, e.name, timestampMs])
      else if (timestampMs > seen[2]) seen[2] = timestampMs
    }

    if (lines.length > 0) {
      const frame = encodeFrame(lines, [...latest.values()], project.id, intents)
      if (!deps.spool.hasRoom(frame.bytes.length)) {
        // The client is told which: a full spool clears as ClickHouse catches up, a full disk needs the operator.
        const diskFull = deps.disk !== undefined && !deps.disk.hasRoom()
        deps.metrics.captureRefused.inc({ reason: diskFull ? 'disk_full' : 'spool_full' })
        throw diskFull ? problems.diskFull() : problems.bufferFull()
      }
      try {
        await deps.spool.append(frame)
      } catch (err) {
        deps.metrics.captureRefused.inc({ reason: 'spool_write_failed' })
        deps.log('spool append failed', err)
        throw problems.unavailable('The events could not be stored. Retry the request later.', { cause: err })
      }
      deps.metrics.eventsAccepted.inc(lines.length)
    }
    if (letters.length > 0) await deps.sink.storeDeadLetters(letters)
    if (warnings.length > 0) await deps.sink.storeIngestionWarnings(warnings)
    return CAPTURE_ACCEPTED
  } catch (err) {
    if (err instanceof ApiProblem) return { status: err.status, body: err.body, headers: err.headers }
    deps.log('capture failed', err)
    // A store that is down or too slow: the client retries later.
    if (isDependencyUnavailable(err)) return { status: 503, body: problems.dependencyUnavailable().body }
    return { status: 500, body: problems.serverError().body }
  }
}
