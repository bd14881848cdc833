import {
  isDependencyUnavailable,
  replaceNul,
  type CoreDeps,
  type FlagDefinitionsResolver,
  type IngestionProject,
  type KeyGuessGuard,
  type ProjectFlags,
  type ProjectTokenResolver,
} from '@burrow/core'
import { randomUUID } from 'node:crypto'
import { evaluateFlags, type FlagEvaluation } from '@burrow/flags'
import type { FlagPerson } from '@burrow/postgres'
import type { CaptureInput, CaptureResult } from './capture'
import { COOKIELESS_SENTINEL, cookielessDistinctId, visitDay, visitorHash, type CookielessSalts } from './cookieless'
import { identifiesOf, type CookielessState } from './cookielessVisits'
import { decodeRequestBody } from './decode'
import { groupPropertiesForFlags, type FlagGroupsLoader } from './flagGroups'
import { projectForRequest } from './projectAuth'
import { storedDistinctId } from './steps/distinctId'
import { ApiProblem, isJsonObject, jsonNestsDeeperThan, MAX_JSON_DEPTH, problems } from '@burrow/contracts'

export interface DecideDeps {
  projects: ProjectTokenResolver
  /** Also what remote config tells about flags. */
  flags: FlagDefinitionsResolver
  /** The stored person of a distinct id (properties, static cohorts, continuity hash keys). */
  flagPerson: (
    projectId: number,
    distinctId: string,
    continuity?: { anonId: string; flagKeys: string[] },
  ) => Promise<FlagPerson | undefined>
  /** The stored properties of the groups a request names, for group flags. */
  flagGroups?: FlagGroupsLoader
  /** The project's early access features posthog-js lists, in the stages asked for (default `beta`). */
  earlyAccessFeatures?: (projectId: number, stages: string[]) => Promise<unknown[]>
  /** For cookieless visitors: the day's salts, and the identifies of stateful mode. */
  cookielessSalts?: CookielessSalts
  cookielessState?: CookielessState
  maxDecompressedBytes: number
  log: CoreDeps['log']
  /** Slows and refuses addresses that keep sending keys that do not exist. */
  keyGuesses?: KeyGuessGuard
}

/**
 * The distinct id flags are evaluated for when posthog-js in cookieless mode asks with the
 * sentinel, as PostHog's flags service computes it: the visitor's hash of today, from the
 * request's address, User-Agent and Origin, counting the visitor's identifies in stateful mode,
 * so that its flags are those of the visitor its events are stored as. Undefined when the
 * request lacks what the hash needs.
 */
async function cookielessVisitor(
  input: CaptureInput,
  body: Record<string, unknown>,
  project: IngestionProject,
  deps: DecideDeps,
): Promise<string | undefined> {
  const userAgent = input.headers['user-agent']
  const host = input.headers.origin
  if (!deps.cookielessSalts || !input.ip || !userAgent || !host) return undefined
  const nowMs = Date.now()
  const { day } = visitDay(nowMs, body.timezone, project.timezone)
  const salt = (await deps.cookielessSalts.forNow(nowMs)).get(day)
  if (!salt) return undefined
  const extra = typeof body.cookieless_hash_extra === 'string' ? body.cookieless_hash_extra : ''
  const baseHash = visitorHash(salt, project.id, input.ip, host, userAgent, extra)
  const identifies =
    project.cookielessMode === 2 && deps.cookielessState ? await identifiesOf(deps.cookielessState, project.id, baseHash) : 0
  return cookielessDistinctId(identifies === 0 ? baseHash : visitorHash(salt, project.id, input.ip, host, userAgent, extra, identifies))
}

/** What the browser SDK configures itself from, in every answer (PostHog's base config). */
const BASE_CONFIG: Readonly<Record<string, unknown>> = Object.freeze({
  config: { enable_collect_everything: true },
  editorParams: {},
  toolbarParams: {},
  isAuthenticated: false,
  supportedCompression: ['gzip', 'gzip-js', 'lz64'],
  sessionRecording: false,
  capturePerformance: false,
  autocapture_opt_out: false,
  autocaptureExceptions: false,
  analytics: { endpoint: '/i/v0/e/' },
  elementsChainAsString: true,
  surveys: false,
  heatmaps: false,
  siteApps: [],
  defaultIdentifiedOnly: true,
})

/** A person not read from the database is in no static cohort. */
const NO_COHORTS: ReadonlySet<number> = new Set()

/** The `v` of a /decide/ request: absent means 1; anything but an integer means 2 (as PostHog reads it). */
function versionOf(query: URLSearchParams): number {
  const v = query.get('v')
  if (v === null || v === '') return 1
  const n = Number(v)
  return Number.isInteger(n) ? n : 2
}

/** A boolean query parameter; undefined when absent or neither true nor false. */
function queryFlag(query: URLSearchParams, name: string): boolean | undefined {
  const value = query.get(name)?.toLowerCase()
  if (value === 'true' || value === '1') return true
  if (value === 'false' || value === '0') return false
  return undefined
}

/**
 * The answer's shape version and whether it carries the configuration, as PostHog's flag service
 * reads a request: /decide/ always configures; a POST to /flags/ with neither `v` nor `config`
 * gets the newest shape with the configuration, otherwise the configuration only with
 * `config=true`, and a `v` that is no integer means 1.
 */
function requestedShape(input: CaptureInput, flagsEndpoint: boolean): { version: number; config: boolean } {
  if (!flagsEndpoint) return { version: versionOf(input.query), config: queryFlag(input.query, 'config') !== false }
  const v = input.query.get('v')
  const config = queryFlag(input.query, 'config')
  const versionGiven = v !== null && v !== ''
  // A GET is answered in the shape its `v` names, with the configuration.
  if (input.body.length === 0) return { version: versionGiven && /^[+-]?\d+$/.test(v) ? Number(v) : 1, config: true }
  if (!versionGiven && config === undefined) return { version: 2, config: true }
  return { version: versionGiven && /^[+-]?\d+$/.test(v) ? Number(v) : 1, config: config === true }
}

/** A valid X-Request-Id names the evaluation, as PostHog's flag service takes it; else a fresh one. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
function requestIdOf(input: CaptureInput): string {
  const header = input.headers['x-request-id']?.trim()
  return header !== undefined && UUID.test(header) ? header.toLowerCase() : randomUUID()
}

function flagDetails(result: FlagEvaluation, flag: { id: number; version?: number | undefined }) {
  return {
    key: result.key,
    enabled: result.enabled,
    variant: result.variant,
    reason: result.reason,
    metadata: { id: flag.id, version: flag.version ?? 1, description: null, payload: result.payload ?? undefined },
  }
}

/** The answer in the shape a client version asks for; `flagsEndpoint` is `/flags/` (newer SDKs). */
function shape(
  results: Array<{ result: FlagEvaluation; flag: { id: number; version?: number | undefined } }>,
  version: number,
  flagsEndpoint: boolean,
  errors = false,
) {
  const enabled = results.filter((r) => r.result.enabled)
  const value = (r: FlagEvaluation) => (r.enabled ? (r.variant ?? true) : false)
  const payloads = Object.fromEntries(enabled.filter((r) => r.result.payload != null).map((r) => [r.result.key, r.result.payload]))
  const details = () => Object.fromEntries(results.map((r) => [r.result.key, flagDetails(r.result, r.flag)]))
  if (flagsEndpoint) {
    if (version >= 2) return { flags: details(), errorsWhileComputingFlags: errors }
    return {
      featureFlags: Object.fromEntries(results.map((r) => [r.result.key, value(r.result)])),
      featureFlagPayloads: payloads,
      errorsWhileComputingFlags: errors,
    }
  }
  if (version <= 1) return { featureFlags: enabled.map((r) => r.result.key) }
  if (version === 2) return { featureFlags: Object.fromEntries(enabled.map((r) => [r.result.key, value(r.result)])) }
  if (version === 3) {
    return {
      featureFlags: Object.fromEntries(results.map((r) => [r.result.key, value(r.result)])),
      featureFlagPayloads: payloads,
      errorsWhileComputingFlags: errors,
    }
  }
  return { flags: details(), errorsWhileComputingFlags: errors }
}

/**
 * The stored person, read only when the flags need it: a condition on a property the request
 * did not send, a static cohort, or an experience-continuity flag. A database failure leaves
 * the request's properties alone and is reported as `errorsWhileComputingFlags`.
 */
async function storedPerson(
  deps: DecideDeps,
  projectId: number,
  project: ProjectFlags,
  distinctId: string,
  sent: Record<string, unknown>,
  anonId: string | undefined,
): Promise<{ person: FlagPerson | undefined; failed: boolean }> {
  const needed =
    project.cohorts.staticIds.length > 0 ||
    project.continuityKeys.length > 0 ||
    project.personKeys.some((key) => key !== 'distinct_id' && !Object.hasOwn(sent, key))
  if (!needed) return { person: undefined, failed: false }
  try {
    const continuity = anonId && anonId !== distinctId ? { anonId, flagKeys: project.continuityKeys } : undefined
    return { person: await deps.flagPerson(projectId, distinctId, continuity), failed: false }
  } catch (err) {
    deps.log(`decide: reading the person of ${JSON.stringify(distinctId)} failed`, err)
    return { person: undefined, failed: true }
  }
}

/**
 * `/decide/` and `/flags/`: the flags that are on for a user, evaluated in memory from the
 * project's cached definitions, with person properties from the request.
 */
export async function handleDecide(input: CaptureInput, deps: DecideDeps, flagsEndpoint: boolean): Promise<CaptureResult> {
  try {
    const { version, config } = requestedShape(input, flagsEndpoint)
    // posthog-js keeps flags only as long as it trusts them (`feature_flag_cache_ttl_ms`): it
    // dates them by `evaluatedAt` and reports `requestId` with each `$feature_flag_called`.
    const requestId = requestIdOf(input)
    const answer = (results: Parameters<typeof shape>[0], errors = false) => ({
      status: 200,
      body: { ...(config ? BASE_CONFIG : {}), ...shape(results, version, flagsEndpoint, errors), requestId, evaluatedAt: Date.now() },
    })
    if (input.body.length === 0) {
      // A GET (or an empty POST) gets the configuration and no flags, as PostHog answers it.
      return answer([])
    }
    const decoded = decodeRequestBody(input, { maxDecompressedBytes: deps.maxDecompressedBytes })
    let body: unknown
    if (jsonNestsDeeperThan(decoded.text, MAX_JSON_DEPTH))
      throw problems.malformedData(`the JSON is nested deeper than ${MAX_JSON_DEPTH} levels`)
    try {
      body = JSON.parse(decoded.text)
    } catch (err) {
      throw problems.malformedData((err as Error).message, { cause: err })
    }
    if (!isJsonObject(body)) throw problems.malformedData('expected a JSON object.')
    const token = [body.api_key, body.token, body.$token, input.query.get('token'), input.query.get('api_key')].find(
      (t): t is string => typeof t === 'string' && t !== '',
    )
    const projectId = body.project_id ?? input.query.get('project_id') ?? undefined
    const project = await projectForRequest(
      { token, projectId: typeof projectId === 'string' || typeof projectId === 'number' ? String(projectId) : undefined },
      deps,
      { missingKey: problems.noApiKey, scope: 'feature_flag:read', ip: input.ip },
    )

    const rawId = body.distinct_id ?? body.$distinct_id
    // As capture stores them, so that the stored person is found.
    let distinctId = typeof rawId === 'string' || typeof rawId === 'number' ? storedDistinctId(String(rawId)) : ''
    if (distinctId === '') throw problems.missingDistinctId()
    if (distinctId === COOKIELESS_SENTINEL && project.cookielessMode)
      distinctId = (await cookielessVisitor(input, body, project, deps)) ?? distinctId
    const personProperties = isJsonObject(body.person_properties)
      ? body.person_properties
      : isJsonObject(body.$properties)
        ? body.$properties
        : {}
    const groups = isJsonObject(body.groups)
      ? (Object.fromEntries(Object.entries(body.groups).map(([k, v]) => [k, String(v)])) as Record<string, string>)
      : {}
    const groupProperties = isJsonObject(body.group_properties) ? (body.group_properties as Record<string, Record<string, unknown>>) : {}
    const anonId =
      typeof body.$anon_distinct_id === 'string' && body.$anon_distinct_id !== '' ? replaceNul(body.$anon_distinct_id) : undefined
    const wanted = Array.isArray(body.flag_keys_to_evaluate ?? body.flag_keys)
      ? new Set((body.flag_keys_to_evaluate ?? body.flag_keys) as unknown[])
      : undefined

    if (body.disable_flags === true) return answer([])
    const projectFlags = await deps.flags.forProject(project.id)
    const flags = wanted ? projectFlags.flags.filter((flag) => wanted.has(flag.key)) : projectFlags.flags
    const stored = await storedPerson(deps, project.id, projectFlags, distinctId, personProperties, anonId)
    const storedGroups = await groupPropertiesForFlags(
      deps.flagGroups,
      { projectId: project.id, project: projectFlags, groups, sent: groupProperties },
      deps.log,
    )
    const overrides: Record<string, string> = { ...stored.person?.hashKeys }
    // A user whose person is not stored yet keeps the bucket of the anonymous id they came with.
    if (anonId) for (const key of projectFlags.continuityKeys) overrides[key] ??= anonId
    const ctx = {
      distinctId,
      personProperties: { ...stored.person?.properties, ...personProperties },
      groups,
      groupProperties: storedGroups.groupProperties,
      groupTypeNames: projectFlags.groupTypeNames,
      hashKeyOverrides: overrides,
      cohorts: projectFlags.cohorts.dynamic,
      staticCohorts: stored.person ? new Set(stored.person.staticCohorts) : NO_COHORTS,
      timezone: projectFlags.timezone,
    }
    // Flags that others depend on are evaluated too, even when the request did not name them.
    return answer(evaluateFlags(projectFlags.flags, ctx, flags), stored.failed || storedGroups.failed)
  } catch (err) {
    if (err instanceof ApiProblem) return { status: err.status, body: err.body, headers: err.headers }
    deps.log('decide failed', err)
    // A store that is down or too slow: the client retries later.
    if (isDependencyUnavailable(err)) return { status: 503, body: problems.dependencyUnavailable().body }
    return { status: 500, body: problems.serverError().body }
  }
}
