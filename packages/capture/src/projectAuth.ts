import { keys, type CoreDeps, type IngestionProject, type ProjectTokenResolver } from '@burrow/core'
import { ApiProblem, problems } from '@burrow/contracts'

/**
 * The project of a request whose project API key this process knows already: capture's common
 * case, answered without a turn of the event loop. Undefined when projectForRequest must decide.
 */
export function knownProject(request: { token: string | undefined }, projects: ProjectTokenResolver): IngestionProject | undefined {
  const token = request.token
  return token === undefined || keys.isPersonalApiKey(token) ? undefined : (projects.peek(token) ?? undefined)
}

/**
 * The project a public request (capture, decide) is for: its project API key, or a personal
 * API key with `project_id`. A database failure while looking it up is a 503 clients retry.
 */
export async function projectForRequest(
  request: { token: string | undefined; projectId: string | undefined },
  deps: { projects: ProjectTokenResolver; log: CoreDeps['log'] },
  missingKey: () => ApiProblem = problems.missingApiKey,
): Promise<IngestionProject> {
  const token = request.token
  if (token === undefined) throw missingKey()
  try {
    const project = keys.isPersonalApiKey(token) ? null : await deps.projects.resolve(token)
    if (project) return project
    if (request.projectId === undefined) {
      throw keys.isPersonalApiKey(token) ? problems.invalidProject() : problems.invalidApiKey()
    }
    const viaPersonalKey = await deps.projects.resolveWithPersonalKey(token, request.projectId)
    if (viaPersonalKey === 'invalid_key') throw problems.invalidPersonalApiKey()
    if (viaPersonalKey === 'invalid_project') throw problems.invalidProject()
    return viaPersonalKey
  } catch (err) {
    if (err instanceof ApiProblem) throw err
    deps.log('project lookup failed', err)
    throw problems.fetchTeamFailed({ cause: err })
  }
}
