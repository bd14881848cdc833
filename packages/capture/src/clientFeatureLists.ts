import { ApiProblem } from '@burrow/contracts'
import type { ProjectTokenResolver } from '@burrow/core'
import type { CaptureResult } from './capture'
import { projectForRequest } from './projectAuth'

/**
 * The lists posthog-js fetches with the project API key in the query (`?token=`), by path, with
 * the key its answer holds them under. Early access features are the project's; this service
 * has no surveys, product tours or web experiments, so a valid key gets an empty list for them:
 * the SDK then shows nothing, as PostHog's does for a project without any, instead of logging a
 * failed request.
 */
const LISTS = new Map([
  ['/api/surveys', 'surveys'],
  ['/api/early_access_features', 'earlyAccessFeatures'],
  ['/api/product_tours', 'product_tours'],
  ['/api/web_experiments', 'experiments'],
])

/** The answer's key for a feature-list path (with or without its trailing slash), or undefined. */
export function clientFeatureList(path: string): string | undefined {
  return LISTS.get(path.endsWith('/') ? path.slice(0, -1) : path)
}

export async function answerClientFeatureList(
  key: string,
  query: URLSearchParams,
  deps: {
    projects: ProjectTokenResolver
    earlyAccessFeatures?: ((projectId: number, stages: string[]) => Promise<unknown[]>) | undefined
    log: (msg: string) => void
  },
): Promise<CaptureResult> {
  try {
    const token = query.get('token') || query.get('api_key') || undefined
    const project = await projectForRequest({ token, projectId: undefined }, deps, { scope: 'early_access_feature:read', ip: undefined })
    if (key === 'earlyAccessFeatures' && deps.earlyAccessFeatures) {
      // posthog-js asks for stages other than beta with `&stage=concept&stage=beta`; there are six.
      const stages = query.getAll('stage').slice(0, 10)
      return { status: 200, body: { [key]: await deps.earlyAccessFeatures(project.id, stages) } }
    }
    return { status: 200, body: { [key]: [] } }
  } catch (err) {
    if (err instanceof ApiProblem) return { status: err.status, body: err.body }
    throw err
  }
}
