import { problems } from '@burrow/contracts'
import { decodePathSegment, type FlagDefinitionsResolver, type ProjectTokenResolver } from '@burrow/core'

export interface RemoteConfigDeps {
  projects: ProjectTokenResolver
  flags: FlagDefinitionsResolver
}

const REMOTE_CONFIG_PATH = /^\/array\/([^/]+)\/(config|config\.js)$/

/** `/array/<token>/config` and `/array/<token>/config.js`, where posthog-js 1.x loads its settings. */
export function remoteConfigRequest(path: string): { token: string; script: boolean } | undefined {
  const match = REMOTE_CONFIG_PATH.exec(path)
  if (!match) return undefined
  const token = decodePathSegment(match[1]!)
  return token === undefined ? undefined : { token, script: match[2] === 'config.js' }
}

export type RemoteConfigAnswer =
  | { status: 200; contentType: 'application/json' | 'application/javascript'; body: string }
  | { status: 404; contentType: 'application/json'; body: string }

/**
 * The project's remote config (PostHog's document): what the browser SDK needs to configure
 * itself, including whether the project has any flags to ask for. Unknown token: 404.
 */
export async function answerRemoteConfig(request: { token: string; script: boolean }, deps: RemoteConfigDeps): Promise<RemoteConfigAnswer> {
  const project = await deps.projects.resolve(request.token)
  if (!project) {
    return { status: 404, contentType: 'application/json', body: JSON.stringify(problems.notFound().body) }
  }
  const { flags } = await deps.flags.forProject(project.id)
  const config = {
    token: request.token,
    supportedCompression: ['gzip', 'gzip-js'],
    hasFeatureFlags: flags.length > 0,
    captureDeadClicks: false,
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    analytics: { endpoint: '/i/v0/e/' },
    elementsChainAsString: true,
    errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
    sessionRecording: false,
    heatmaps: false,
    surveys: false,
    defaultIdentifiedOnly: true,
    siteApps: [],
  }
  if (!request.script) return { status: 200, contentType: 'application/json', body: JSON.stringify(config) }
  const token = JSON.stringify(request.token)
  const script = `(function() {
  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};
  window._POSTHOG_REMOTE_CONFIG[${token}] = { config: ${JSON.stringify(config)}, siteApps: [] };
})();
`
  return { status: 200, contentType: 'application/javascript', body: script }
}
