import { toClickHouseDateTime, type DeadLetterRow, type IngestionWarningRow } from '@burrow/clickhouse'
import { ApiProblem, problems } from '@burrow/contracts'
import type { CoreDeps, ProjectTokenResolver } from '@burrow/core'
import { encodeFrame, type PersonIntent, type Sighting, type SpoolAppend } from '@burrow/spool'
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
  maxDecompressedBytes: number
  log: CoreDeps['log']
  /** The daily salts of cookieless hashes; without them, cookieless events are dropped. */
  cookielessSalts?: CookielessSalts
  /** The sessions and identifies of stateful cookieless mode, shared by every instance; without it, mode 2 is stateless. */
  cookielessState?: CookielessState
}

export type CaptureResult = { status: number; body: unknown }

/** The answer to every capture request whose events are stored (or silently dropped). */
export const CAPTURE_ACCEPTED: CaptureResult = { status: 200, body: { status: 1 } }

function parseJson(text: string): unknown {
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
    const project = knownProject(request, deps.projects) ?? (await projectForRequest(request, deps))
    if (request.events.length === 0) return CAPTURE_ACCEPTED

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
      try {
        lines.push(encodeEvent(e, project.id, createdAt))
        intents.push(e.person)
      } catch (err) {
        letters.push(
          deadLetter(subject, rawPayloadOf(raw), { location: 'ingestion:encode_row', reason: 'unencodable_event', error: String(err) }),
        )
        continue
      }
      const timestampMs = Math.floor(e.timestampUs / 1000)
      const seen = latest.get(e.name)
      if (!seen) latest.set(e.name, [project.id, e.name, timestampMs])
      else if (timestampMs > seen[2]) seen[2] = timestampMs
    }

    if (lines.length > 0) {
      const frame = encodeFrame(lines, [...latest.values()], project.id, intents)
      if (!deps.spool.hasRoom(frame.bytes.length)) throw problems.bufferFull()
      try {
        await deps.spool.append(frame)
      } catch (err) {
        deps.log('spool append failed', err)
        throw problems.unavailable('The events could not be stored. Retry the request later.', { cause: err })
      }
      deps.metrics.eventsAccepted.inc(lines.length)
    }
    if (letters.length > 0) await deps.sink.storeDeadLetters(letters)
    if (warnings.length > 0) await deps.sink.storeIngestionWarnings(warnings)
    return CAPTURE_ACCEPTED
  } catch (err) {
    if (err instanceof ApiProblem) return { status: err.status, body: err.body }
    deps.log('capture failed', err)
    return { status: 500, body: problems.serverError().body }
  }
}
