import { randomUUID } from 'node:crypto'
import {
  ApiProblem,
  problems,
  type AnalyticsQuery,
  type QueryRequest,
  type QueryResponse,
  type QueryStatus,
  type RefreshMode,
} from '@burrow/contracts'
import { asTenant } from '@burrow/clickhouse'
import { actions as actionRows, cohorts as cohortRows, type ProjectRow } from '@burrow/postgres'
import { QueryCancelled, runQuery, type QueryContext, type RunnerOutput } from '@burrow/query'
import { pinCohortVersions } from '../cohorts/cohortDefinition'
import type { CoreDeps } from '../deps'
import { parsePropertyFilters } from '../events/propertyFilters'
import { queryCacheKey } from './cacheKey'
import { ProjectSlots } from './concurrency'
import { DEFAULT_QUERY_LIMITS, type QueryLimits } from './limits'
import { pendingStatus, QueryStatusStore } from './statusStore'

export { DEFAULT_QUERY_LIMITS, type QueryLimits } from './limits'

/** A computed answer as the cache keeps it. */
interface CachedAnswer {
  output: RunnerOutput
  lastRefresh: string
}

/** Cached answers are kept a day past their freshness, for `force_cache` and `async` to fall back on. */
const CACHE_KEEP_SECONDS = 24 * 3600
/** A client may not ask for a fresh computation of the same query more often than this. */
const MIN_CLIENT_REFRESH_SECONDS = 60

/** How much longer than a statement's execution limit a query's slot is held across servers (its other statements, its answer). */
const SLOT_LEASE_MARGIN_S = 30

/** How often a running async query looks whether it was cancelled on another server. */
const CANCEL_CHECK_MS = 1000

/** What one server keeps per deps: its slots and the async queries it runs. */
interface QueryState {
  slots: ProjectSlots
  running: Map<string, AbortController>
  statuses: QueryStatusStore
}
const states = new WeakMap<CoreDeps, QueryState>()

const limitsOf = (deps: CoreDeps): QueryLimits => deps.queryLimits ?? DEFAULT_QUERY_LIMITS

function stateOf(deps: CoreDeps): QueryState {
  let state = states.get(deps)
  if (!state) {
    state = {
      slots: new ProjectSlots(
        () => limitsOf(deps).concurrencyPerProject,
        () => limitsOf(deps).concurrencyWaitMs,
        // Across servers, a slot is held at most as long as a query may take, and some.
        deps.querySlots && { store: deps.querySlots, leaseMs: () => (limitsOf(deps).maxExecutionSeconds + SLOT_LEASE_MARGIN_S) * 1000 },
      ),
      running: new Map(),
      statuses: new QueryStatusStore(deps.cache),
    }
    states.set(deps, state)
  }
  return state
}

function contextFor(deps: CoreDeps, project: ProjectRow, signal?: AbortSignal): QueryContext {
  return {
    ch: deps.ch,
    teamId: project.id,
    timezone: project.timezone || 'UTC',
    // Sunday unless the project starts its weeks on Monday, PostHog's default.
    weekStartDay: project.week_start_day === 1 ? 1 : 0,
    testAccountFilters: project.test_account_filters,
    pathCleaningFilters: project.path_cleaning_filters,
    now: new Date(),
    maxExecutionSeconds: limitsOf(deps).maxExecutionSeconds,
    // The whole query (all its statements) answers within the limit.
    deadline: Date.now() + limitsOf(deps).maxExecutionSeconds * 1000,
    ...(signal ? { signal } : {}),
    async properties(raw, attr) {
      try {
        return await pinCohortVersions(deps.sql, project.id, parsePropertyFilters(raw))
      } catch (err: unknown) {
        if (err instanceof ApiProblem && err.body.type === 'validation_error') err.body.attr = attr
        throw err
      }
    },
    async actions(ids) {
      const rows = await Promise.all(ids.map((id) => actionRows.getAction(deps.sql, project.id, id)))
      return rows.flatMap((row) => (row && !row.deleted ? [{ id: row.id, name: row.name ?? '', steps: row.steps }] : []))
    },
    async cohorts(ids) {
      const rows = await cohortRows.findCohorts(deps.sql, project.id, ids)
      const versions = await cohortRows.membersVersions(
        deps.sql,
        project.id,
        rows.map((r) => r.id),
      )
      return rows.map((row) => ({
        id: row.id,
        name: row.name ?? '',
        members: { type: 'cohort', cohortId: row.id, version: versions.get(row.id) ?? 0, negated: false },
      }))
    },
  }
}

function refreshMode(request: QueryRequest): RefreshMode {
  if (request.refresh === true) return 'force_blocking'
  if (request.refresh === false || request.refresh === undefined || request.refresh === null) return request.async ? 'async' : 'blocking'
  return request.refresh
}

async function compute(deps: CoreDeps, project: ProjectRow, query: AnalyticsQuery, signal?: AbortSignal): Promise<CachedAnswer> {
  const started = performance.now()
  const output = await stateOf(deps).slots.run(project.id, () =>
    // Its statements wait their turn at ClickHouse's reader connections as the organization's and the project's.
    asTenant({ organization: project.organization_id, project: project.id }, async () => {
      const answer = runQuery(contextFor(deps, project, signal), query)
      if (!answer) throw problems.validation('kind', `Queries of kind ${query.kind} are not supported.`)
      return answer
    }),
  )
  const timings = [{ k: `./${query.kind}`, t: (performance.now() - started) / 1000 }]
  return { output: { ...output, extra: { ...output.extra, timings } }, lastRefresh: new Date().toISOString() }
}

async function readCache(deps: CoreDeps, key: string): Promise<CachedAnswer | undefined> {
  const text = await deps.cache.get(`query:${key}`)
  return text === undefined ? undefined : (JSON.parse(text) as CachedAnswer)
}

async function writeCache(deps: CoreDeps, key: string, answer: CachedAnswer): Promise<void> {
  await deps.cache.set(`query:${key}`, JSON.stringify(answer), limitsOf(deps).cacheFreshSeconds + CACHE_KEEP_SECONDS)
}

const isFresh = (deps: CoreDeps, answer: CachedAnswer) =>
  Date.now() - Date.parse(answer.lastRefresh) < limitsOf(deps).cacheFreshSeconds * 1000

interface EnvelopeInput {
  project: ProjectRow
  cacheKey: string
  answer: CachedAnswer | undefined
  isCached: boolean
  status?: QueryStatus | null
  trigger?: string
}

function envelope(deps: CoreDeps, input: EnvelopeInput): QueryResponse {
  const { answer } = input
  const last = answer ? Date.parse(answer.lastRefresh) : undefined
  const { timings, ...extra } = (answer?.output.extra ?? {}) as { timings?: Array<{ k: string; t: number }> }
  return {
    ...extra,
    results: answer ? answer.output.results : null,
    timings: input.isCached ? [] : (timings ?? []),
    hogql: answer?.output.hogql ?? null,
    error: null,
    is_cached: input.isCached,
    last_refresh: answer ? answer.lastRefresh : null,
    next_allowed_client_refresh: last === undefined ? null : new Date(last + MIN_CLIENT_REFRESH_SECONDS * 1000).toISOString(),
    cache_target_age: last === undefined ? null : new Date(last + limitsOf(deps).cacheFreshSeconds * 1000).toISOString(),
    cache_key: input.cacheKey,
    timezone: input.project.timezone || 'UTC',
    calculation_trigger: input.trigger ?? null,
    query_status: input.status ?? null,
    resolved_date_range: answer?.output.resolvedDateRange ?? null,
    modifiers: {},
  }
}

/**
 * PostHog's `POST /query/`: the answer from the cache when fresh enough for the refresh mode,
 * otherwise computed (within the project's concurrency slots) and cached; async modes answer at
 * once with a status to poll.
 */
export async function runQueryRequest(
  deps: CoreDeps,
  project: ProjectRow,
  request: QueryRequest,
  signal?: AbortSignal,
): Promise<QueryResponse> {
  const mode = refreshMode(request)
  const cacheKey = queryCacheKey(request.query, project.id, project.timezone || 'UTC', {
    test_account_filters: project.test_account_filters,
    week_start_day: project.week_start_day,
    // A paths query may apply the project's path cleaning rules: a change of them is another answer.
    ...(request.query.kind === 'PathsQuery' ? { path_cleaning_filters: project.path_cleaning_filters } : {}),
  })
  const cached = mode === 'force_blocking' || mode === 'force_async' ? undefined : await readCache(deps, cacheKey)
  const base = { project, cacheKey }

  if (mode === 'force_cache') return envelope(deps, { ...base, answer: cached, isCached: cached !== undefined })
  if (cached && isFresh(deps, cached)) return envelope(deps, { ...base, answer: cached, isCached: true })
  if (mode === 'lazy_async' && cached) return envelope(deps, { ...base, answer: cached, isCached: true })

  const async = mode === 'async' || mode === 'force_async' || mode === 'lazy_async' || (mode === 'async_except_on_cache_miss' && cached)
  if (!async) {
    const answer = await compute(deps, project, request.query, signal)
    await writeCache(deps, cacheKey, answer)
    return envelope(deps, { ...base, answer, isCached: false, trigger: mode })
  }
  const status = await startAsync(deps, project, request, cacheKey)
  return envelope(deps, { ...base, answer: undefined, isCached: false, status })
}

async function startAsync(deps: CoreDeps, project: ProjectRow, request: QueryRequest, cacheKey: string): Promise<QueryStatus> {
  const state = stateOf(deps)
  const id = request.client_query_id ?? randomUUID()
  const runKey = `${project.id}:${id}`
  if (state.running.has(runKey)) throw problems.validation('client_query_id', `A query with the id ${id} is already running.`)
  const status = pendingStatus(project.id, id, new Date())
  await state.statuses.put(status)
  const controller = new AbortController()
  state.running.set(runKey, controller)
  const finish = async (update: Partial<QueryStatus>) => {
    state.running.delete(runKey)
    // A cancelled query's status is gone: do not bring it back.
    if (controller.signal.aborted) return
    await state.statuses.put({ ...status, ...update, complete: true, end_time: new Date().toISOString() })
  }
  // A DELETE may reach another server: the status gone from the shared cache cancels the query here too.
  const watch = setInterval(() => {
    void state.statuses
      .get(project.id, id)
      .then((current) => {
        // A cache that does not answer misses every read: that is no cancellation.
        if (current === undefined && deps.cache.connected()) controller.abort()
      })
      .catch(() => undefined)
  }, CANCEL_CHECK_MS)
  watch.unref()
  const job = async () => {
    try {
      const answer = await compute(deps, project, request.query, controller.signal)
      await writeCache(deps, cacheKey, answer)
      await finish({ results: envelope(deps, { project, cacheKey, answer, isCached: false, trigger: 'async' }) })
    } catch (err: unknown) {
      if (err instanceof QueryCancelled) return finish({})
      const message = err instanceof ApiProblem ? err.body.detail : 'The query failed.'
      if (!(err instanceof ApiProblem)) deps.log(`an async query of project ${project.id} failed`, err)
      await finish({ error: true, error_message: message })
    } finally {
      clearInterval(watch)
    }
  }
  void job().catch((err: unknown) => deps.log(`the status of an async query of project ${project.id} could not be stored`, err))
  return status
}

/** An async query's status, with its results once complete. */
export async function queryStatus(deps: CoreDeps, projectId: number, id: string): Promise<QueryStatus> {
  const status = await stateOf(deps).statuses.get(projectId, id)
  if (!status) throw problems.notFound(`Query with ID ${id} not found.`)
  return status
}

/** Cancels an async query this server runs and forgets its status. */
export async function cancelQuery(deps: CoreDeps, projectId: number, id: string): Promise<void> {
  const state = stateOf(deps)
  const status = await state.statuses.get(projectId, id)
  if (!status) throw problems.notFound(`Query with ID ${id} not found.`)
  state.running.get(`${projectId}:${id}`)?.abort()
  state.running.delete(`${projectId}:${id}`)
  await state.statuses.delete(projectId, id)
}
