import { publicUrl, TRPC_ENDPOINT, type HttpRequest, type HttpResponse } from '@burrow/api'
import {
  answerClientFeatureList,
  answerRemoteConfig,
  clientAddress,
  CAPTURE_ACCEPTED,
  clientFeatureList,
  handleCapture,
  remoteConfigRequest,
  handleDecide,
  isCapturePath,
  type CaptureDeps,
  type CaptureResult,
  type DecideDeps,
  type ProxyTrust,
  trustsProxy,
} from '@burrow/capture'
import { timingSafeEqual } from 'node:crypto'
import { problems, type ApiProblem } from '@burrow/contracts'
import type { ClientBundles } from './clientBundles'
import type { ConsoleAssets } from './consoleAssets'
import type { IncomingRequest, OutgoingResponse } from './uwsServer'
import type { ServerMetrics } from '../observability/metrics'
import type { ReadinessReport } from '../observability/probes'
import { methodLabel, routeLabel } from '../observability/routeLabels'

export type Lifecycle = 'starting' | 'ready' | 'draining'

/** One answered request, as a request log line tells it. */
export interface AnsweredRequest {
  method: string
  route: string
  path: string
  status: number
  durationMs: number
}

export interface DispatchDeps {
  lifecycle: () => Lifecycle
  siteUrl: string | undefined
  trustProxy: ProxyTrust
  /** The metrics in Prometheus' text format, served at /_metrics; absent where they are served on a port of their own. */
  metricsText: (() => Promise<{ contentType: string; body: string }>) | undefined
  /** When given, /_metrics answers only requests with `Authorization: Bearer <token>`. */
  metricsToken?: string | undefined
  /** What /_readyz reports once the service is ready; absent where another thread answers it. */
  readiness?: () => Promise<ReadinessReport>
  metrics: Pick<ServerMetrics, 'requests' | 'requestDuration' | 'captureRefused'>
  /** Told of every answer (request logs at debug level); absent when nothing listens, which costs nothing. */
  onAnswered?: ((entry: AnsweredRequest) => void) | undefined
  /** Absent when this process does not run ingestion (ROLE=api). */
  capture: CaptureDeps | undefined
  /** Flag evaluation for /decide/ and /flags/; served with capture. */
  decide: DecideDeps | undefined
  /** posthog-js's bundles under /static/; absent where another thread serves them. */
  bundles?: ClientBundles
  /** The console's page and files at `/`; absent where it is not built or another thread serves it. */
  console?: ConsoleAssets | undefined
  /** Origins whose pages may call /api and /trpc with credentials and read the answers (CORS_ALLOWED_ORIGINS). */
  corsAllowedOrigins?: readonly string[]
  /** Absent when this process does not serve the private API (ROLE=ingestion). */
  rest: ((req: HttpRequest) => Promise<HttpResponse>) | undefined
  trpc: ((req: HttpRequest) => Promise<HttpResponse>) | undefined
}

const json = (status: number, payload: unknown, headers: Record<string, string> = {}): OutgoingResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(payload),
})

const problemResponse = (problem: ApiProblem) => json(problem.status, problem.body)

const NOT_FOUND = problemResponse(problems.notFound())
const STARTING = problemResponse(problems.starting())
const SHUTTING_DOWN = problemResponse(problems.shuttingDown())
const unavailable = (lifecycle: Lifecycle) => (lifecycle === 'starting' ? STARTING : SHUTTING_DOWN)

/**
 * CORS as PostHog answers it: the origin mirrored, with credentials, on requests that carry an
 * Origin (browsers on another origin); none on the others (server-side libraries). A preflight
 * is answered in any case, with the headers it asks for.
 */
function corsHeaders(req: IncomingRequest): Record<string, string> | undefined {
  const origin = req.headers.origin
  if (!origin && req.method !== 'OPTIONS') return undefined
  const headers: Record<string, string> = {
    'access-control-allow-origin': origin ?? '*',
    'access-control-allow-methods': 'GET, POST, PATCH, PUT, DELETE, OPTIONS',
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type, authorization',
  }
  if (origin) {
    headers['access-control-allow-credentials'] = 'true'
    headers.vary = 'Origin'
  }
  if (req.method === 'OPTIONS') headers['access-control-max-age'] = '86400'
  return headers
}

/**
 * CORS of the private API and tRPC, which the console's session cookie authenticates: only the
 * allowed origins get the headers that let a browser send credentials and read the answer. Any
 * other origin's preflight is answered without them, so its browser sends nothing.
 */
function apiCorsHeaders(req: IncomingRequest, allowed: readonly string[]): Record<string, string> | undefined {
  const origin = req.headers.origin
  if (!origin || !allowed.includes(origin)) return undefined
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-allow-methods': 'GET, POST, PATCH, PUT, DELETE, OPTIONS',
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type, authorization, x-csrftoken',
    vary: 'Origin',
    ...(req.method === 'OPTIONS' ? { 'access-control-max-age': '86400' } : {}),
  }
}

/** Whether the client reached the service over HTTPS: SITE_URL says so, or a trusted proxy's X-Forwarded-Proto does. */
function overHttps(req: IncomingRequest, siteUrl: string | undefined, trustProxy: ProxyTrust): boolean {
  if (siteUrl?.startsWith('https:')) return true
  const proto = req.headers['x-forwarded-proto']?.split(',')[0]?.trim().toLowerCase()
  return proto === 'https' && trustsProxy(trustProxy, req.remoteAddress)
}

/** A response with CORS headers added (a new object: shared constant responses stay as they are). */
function withCors(response: OutgoingResponse, cors: Record<string, string> | undefined): OutgoingResponse {
  return cors ? { status: response.status, headers: { ...cors, ...response.headers }, body: response.body } : response
}

const jsonResult = (result: { status: number; body: unknown; headers?: Readonly<Record<string, string>> | undefined }) =>
  json(result.status, result.body, result.headers)

/** Capture's answer; the one nearly every request gets is built once (no layer changes a response). */
const CAPTURE_ACCEPTED_RESPONSE = jsonResult(CAPTURE_ACCEPTED)
const captureResponse = (result: CaptureResult) => (result === CAPTURE_ACCEPTED ? CAPTURE_ACCEPTED_RESPONSE : jsonResult(result))

type Answer = OutgoingResponse | Promise<OutgoingResponse>

/**
 * An endpoint browsers call from other origins with a project key: CORS on every answer, the
 * preflight answered (with `{"status": 1}` where PostHog answers it so), 503 unless ready.
 */
function publicEndpoint(
  req: IncomingRequest,
  lifecycle: Lifecycle,
  preflightStatusBody: boolean,
  answer: () => Promise<OutgoingResponse>,
): Answer {
  const cors = corsHeaders(req)
  if (req.method === 'OPTIONS')
    return withCors(preflightStatusBody ? json(200, { status: 1 }) : { status: 200, headers: {}, body: '' }, cors)
  if (lifecycle !== 'ready') return withCors(unavailable(lifecycle), cors)
  return cors ? answer().then((response) => withCors(response, cors)) : answer()
}

function clientIp(req: IncomingRequest, trustProxy: ProxyTrust): string | undefined {
  return clientAddress(req.headers['x-forwarded-for'], req.remoteAddress, trustProxy)
}

/** What capture and flags read of a request. */
function publicInput(req: IncomingRequest, body: Buffer, trustProxy: ProxyTrust) {
  return { path: req.path, query: new URLSearchParams(req.query), headers: req.headers, body, ip: clientIp(req, trustProxy) }
}

const DECIDE_PATHS = new Set(['/decide', '/decide/', '/flags', '/flags/'])

/**
 * The endpoints SDKs call with a project key: capture, flags, remote config and the feature
 * lists. They need only projects and flags, which capture threads keep, so threads answer them.
 */
export function isPublicSdkPath(path: string): boolean {
  return isCapturePath(path) || DECIDE_PATHS.has(path) || remoteConfigRequest(path) !== undefined || clientFeatureList(path) !== undefined
}

/** Routes each request of the one listening address to ingestion, the private API or the service endpoints. */
export function createDispatcher(deps: DispatchDeps) {
  // Not async: capture, most of the traffic, goes through one promise (its spool write) rather than one per layer.
  function route(req: IncomingRequest): Answer {
    const path = req.path
    const lifecycle = deps.lifecycle()
    if (path === '/_health' || path === '/_health/') {
      return json(lifecycle === 'ready' ? 200 : 503, { status: lifecycle === 'ready' ? 'ok' : lifecycle })
    }
    // Liveness: the process answers. Never failed by a dependency, so an orchestrator does not restart an instance that waits for one.
    if (path === '/_livez' || path === '/_health/live') return LIVE
    if ((path === '/_readyz' || path === '/_health/ready') && deps.readiness) return readinessAnswer(lifecycle, deps.readiness)
    const metricsText = deps.metricsText
    if ((path === '/_metrics' || path === '/_metrics/') && metricsText) {
      if (deps.metricsToken !== undefined && !bearerMatches(req.headers.authorization, deps.metricsToken)) return METRICS_UNAUTHORIZED
      return metricsText().then(({ contentType, body }) => ({ status: 200, headers: { 'content-type': contentType }, body }))
    }

    const capture = deps.capture
    if (isCapturePath(path) && capture) {
      if (lifecycle === 'draining' && req.method !== 'OPTIONS') deps.metrics.captureRefused.inc({ reason: 'draining' })
      return publicEndpoint(req, lifecycle, true, () =>
        handleCapture(publicInput(req, req.body, deps.trustProxy), capture).then(captureResponse),
      )
    }
    const decide = deps.decide
    if (DECIDE_PATHS.has(path) && decide) {
      const body = req.method === 'GET' ? Buffer.alloc(0) : req.body
      return publicEndpoint(req, lifecycle, true, async () =>
        jsonResult(await handleDecide(publicInput(req, body, deps.trustProxy), decide, path.startsWith('/flags'))),
      )
    }
    const remoteConfig = decide ? remoteConfigRequest(path) : undefined
    if (remoteConfig && decide) {
      return publicEndpoint(req, lifecycle, false, async () => {
        const answer = await answerRemoteConfig(remoteConfig, decide)
        return { status: answer.status, headers: { 'content-type': answer.contentType }, body: answer.body }
      })
    }

    const featureList = decide ? clientFeatureList(path) : undefined
    if (featureList && decide) {
      return publicEndpoint(req, lifecycle, false, async () =>
        jsonResult(await answerClientFeatureList(featureList, new URLSearchParams(req.query), decide)),
      )
    }
    const bundle = deps.bundles?.answer(req)
    if (bundle) return bundle
    const consoleFile = deps.console?.answer(req)
    if (consoleFile) return consoleFile

    // `/flags/definitions` is PostHog's path for a private-API resource (local evaluation).
    const api =
      path.startsWith('/api/') || path === '/flags/definitions' || path === '/flags/definitions/'
        ? deps.rest
        : path === TRPC_ENDPOINT || path.startsWith(`${TRPC_ENDPOINT}/`)
          ? deps.trpc
          : undefined
    if (api) {
      const cors = apiCorsHeaders(req, deps.corsAllowedOrigins ?? [])
      if (req.method === 'OPTIONS') return withCors({ status: 200, headers: { vary: 'Origin' }, body: '' }, cors)
      if (lifecycle !== 'ready') return withCors(unavailable(lifecycle), cors)
      const url = publicUrl(deps.siteUrl, req.headers, req.query ? `${path}?${req.query}` : path)
      const answer = api({
        method: req.method,
        url,
        headers: req.headers,
        body: req.body,
        signal: req.signal,
        ip: clientIp(req, deps.trustProxy),
        secure: overHttps(req, deps.siteUrl, deps.trustProxy),
      })
      return cors ? answer.then((response) => withCors(response, cors)) : answer
    }
    return NOT_FOUND
  }

  // The counter of each (route, status) and histogram of each (route, method), looked up once: resolving labels costs more than counting.
  const counters = new Map<string, Map<number, { inc: () => void }>>()
  const histograms = new Map<string, { observe: (seconds: number) => void }>()
  function counted(req: IncomingRequest, response: OutgoingResponse, started: number): OutgoingResponse {
    const routeName = routeLabel(req.path)
    let byStatus = counters.get(routeName)
    if (!byStatus) counters.set(routeName, (byStatus = new Map<number, { inc: () => void }>()))
    let counter = byStatus.get(response.status)
    if (!counter) byStatus.set(response.status, (counter = deps.metrics.requests.labels(routeName, String(response.status))))
    counter.inc()
    const method = methodLabel(req.method)
    const key = `${routeName} ${method}`
    let histogram = histograms.get(key)
    if (!histogram) histograms.set(key, (histogram = deps.metrics.requestDuration.labels(routeName, method)))
    const seconds = (performance.now() - started) / 1000
    histogram.observe(seconds)
    deps.onAnswered?.({ method: req.method, route: routeName, path: req.path, status: response.status, durationMs: seconds * 1000 })
    return response
  }

  return function dispatch(req: IncomingRequest): Answer {
    const started = performance.now()
    const answer = route(req)
    return answer instanceof Promise ? answer.then((response) => counted(req, response, started)) : counted(req, answer, started)
  }
}

const LIVE = json(200, { status: 'ok' })
const METRICS_UNAUTHORIZED = json(401, problems.notAuthenticated().body, { 'www-authenticate': 'Bearer' })

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '')
  const expected = Buffer.from(token)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** 200 when ready and no critical check fails, else 503; the body says which check fails and why. */
async function readinessAnswer(lifecycle: Lifecycle, readiness: () => Promise<ReadinessReport>): Promise<OutgoingResponse> {
  if (lifecycle !== 'ready') return json(503, { status: lifecycle, checks: {} })
  const report = await readiness()
  return json(report.status === 'unavailable' ? 503 : 200, report, { 'cache-control': 'no-store' })
}
