import { restRoutes, TRPC_ENDPOINT } from '@burrow/api'
import { clientFeatureList, isCapturePath } from '@burrow/capture'

const DECIDE_PATHS = new Set(['/decide', '/decide/', '/flags', '/flags/'])

/** The private API's route patterns (`/api/projects/:project_id/cohorts/:id/`), in the table's order, as the REST facade matches them. */
const API_PATTERNS = [...new Set(restRoutes.map((route) => route.path))].map((pattern) => ({
  pattern,
  regex: new RegExp(
    `^${pattern
      .replace(/\/$/, '')
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/')}/?$`,
  ),
}))

const SERVICE_PATHS: Record<string, string> = {
  '/_health': 'health',
  '/_health/': 'health',
  '/_livez': 'livez',
  '/_health/live': 'livez',
  '/_readyz': 'readyz',
  '/_health/ready': 'readyz',
  '/_metrics': 'metrics',
  '/_metrics/': 'metrics',
}

/**
 * The label of a request's route in metrics and logs: a name per endpoint, and for the private
 * API the route pattern rather than the path, so that ids do not make a series each (a path
 * that matches no route is `api_unmatched`).
 */
export function routeLabel(path: string): string {
  if (isCapturePath(path)) return 'capture'
  if (DECIDE_PATHS.has(path)) return path.startsWith('/flags') ? 'flags' : 'decide'
  const service = SERVICE_PATHS[path]
  if (service) return service
  if (path.startsWith('/api/') || path.startsWith('/flags/definitions')) {
    for (const { pattern, regex } of API_PATTERNS) if (regex.test(path)) return pattern
    return 'api_unmatched'
  }
  if (path.startsWith('/array/')) return 'remote_config'
  if (path.startsWith('/static/')) return 'static'
  if (clientFeatureList(path)) return 'feature_lists'
  if (path.startsWith(TRPC_ENDPOINT)) return 'trpc'
  return 'other'
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])

/** The method as a label: one of HTTP's, so that a client sending made-up methods cannot add series. */
export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : 'other'
}
