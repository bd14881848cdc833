import type { IngestionProject } from '@burrow/core'
import type { PersonIntent } from '@burrow/spool'
import type { RawEvent } from './payload'

/** An event on its way through the steps; each step fills in or checks some fields. */
export interface DraftEvent {
  /** The event as the client sent it, kept unchanged for dead letters. */
  readonly raw: RawEvent
  /** The event the steps read: the raw one, or what a conversion step made of it. */
  input: RawEvent
  name: string
  distinctId: string
  properties: Record<string, unknown>
  uuid: string
  /** Microseconds since the epoch. */
  timestampUs: number
  elementsChain: string
  /** What the event asks of its person; set by the last step. */
  person: PersonIntent
  /** Warnings about a stored event (a merge it asked for and cannot have), for the project's users. */
  warnings?: IngestionWarning[]
  /** A visitor of stateful cookieless mode, whose distinct and session ids come from the shared state after the hash step. */
  cookieless?: CookielessVisit
}

/** What a stateful cookieless visitor's ids are derived from: the day's salt and the hash's input, its base hash and time. */
export interface CookielessVisit {
  salt: Buffer
  ip: string
  host: string
  userAgent: string
  extra: string
  baseHash: Buffer
  timestampMs: number
}

export interface RequestContext {
  project: IngestionProject
  /** The client's address, unless it could not be determined. */
  ip: string | undefined
  nowMs: number
  sentAtMs: number | undefined
  /** Cookieless salts by day, when the project hashes cookieless visitors and the request has any. */
  cookielessSalts?: ReadonlyMap<string, Buffer>
  /** Whether cookieless visitors get their ids from the shared state (PostHog's stateful mode): set with the salts. */
  cookielessStateful?: boolean
}

/** What a project's users are told about events that were not stored as sent (PostHog's ingestion warnings). */
export interface IngestionWarning {
  type: string
  details: Record<string, unknown>
}

export type StepResult =
  { kind: 'ok' } | { kind: 'drop'; reason: string; warning?: IngestionWarning } | { kind: 'dlq'; reason: string; error: string }

export const ok: StepResult = { kind: 'ok' }
export const drop = (reason: string, warning?: IngestionWarning): StepResult =>
  warning ? { kind: 'drop', reason, warning } : { kind: 'drop', reason }
export const dlq = (reason: string, error: unknown): StepResult => ({ kind: 'dlq', reason, error: String(error) })

export interface Step {
  name: string
  run(event: DraftEvent, ctx: RequestContext): StepResult
}

export type PipelineOutcome =
  | { kind: 'ok'; event: DraftEvent }
  | { kind: 'drop'; reason: string; step: string; warning?: IngestionWarning }
  | { kind: 'dlq'; reason: string; error: string; step: string; event: DraftEvent }

function draftOf(raw: RawEvent): DraftEvent {
  return { raw, input: raw, name: '', distinctId: '', properties: {}, uuid: '', timestampUs: 0, elementsChain: '', person: '' }
}

/**
 * Runs the steps in order until one drops or dead-letters the event. A step that throws is a
 * bug or an input no step foresaw: the event goes to the dead letter queue with the error,
 * and its neighbours in the request are unaffected.
 */
export function runPipeline(steps: readonly Step[], raw: RawEvent, ctx: RequestContext, event: DraftEvent = draftOf(raw)): PipelineOutcome {
  for (const step of steps) {
    let result: StepResult
    try {
      result = step.run(event, ctx)
    } catch (err) {
      result = dlq('step_failed', err)
    }
    if (result.kind === 'drop') {
      return result.warning
        ? { kind: 'drop', reason: result.reason, step: step.name, warning: result.warning }
        : { kind: 'drop', reason: result.reason, step: step.name }
    }
    if (result.kind === 'dlq') return { kind: 'dlq', reason: result.reason, error: result.error, step: step.name, event }
  }
  return { kind: 'ok', event }
}
