import { keys, type CoreDeps, type GuessedKey, type IngestionProject, type KeyGuessGuard, type ProjectTokenResolver } from '@burrow/core'
import { ApiProblem, problems, type Scope } from '@burrow/contracts'

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
  deps: { projects: ProjectTokenResolver; log: CoreDeps['log']; keyGuesses?: KeyGuessGuard | undefined },
  options: { missingKey?: () => ApiProblem; scope: Scope; ip: string | undefined },
): Promise<IngestionProject> {
  const missingKey = options.missingKey ?? problems.missingApiKey
  try {
    return await lookUpProject(request, deps, missingKey, options.scope)
  } catch (err) {
    // A key that does not exist counts against its address, which is slowed, then refused, if it keeps guessing.
    const guessed = err instanceof ApiProblem ? GUESSED_KEY_BY_CODE[err.body.code] : undefined
    if (guessed) await deps.keyGuesses?.failed(guessed, options.ip)
    throw err
  }
}

const GUESSED_KEY_BY_CODE: Partial<Record<string, GuessedKey>> = { invalid_api_key: 'project', invalid_personal_api_key: 'personal' }

async function lookUpProject(
  request: { token: string | undefined; projectId: string | undefined },
  deps: { projects: ProjectTokenResolver; log: CoreDeps['log'] },
  missingKey: () => ApiProblem,
  scope: Scope,
): Promise<IngestionProject> {
  const token = request.token
  if (token === undefined) throw missingKey()
  try {
    const project = keys.isPersonalApiKey(token) ? null : await deps.projects.resolve(token)
    if (project) return project
    if (request.projectId === undefined) {
      throw keys.isPersonalApiKey(token) ? problems.invalidProject() : problems.invalidApiKey()
    }
    const viaPersonalKey = await deps.projects.resolveWithPersonalKey(token, request.projectId, scope)
    if (viaPersonalKey === 'invalid_key') throw problems.invalidPersonalApiKey()
    if (viaPersonalKey === 'invalid_project') throw problems.invalidProject()
    if ('refused' in viaPersonalKey) throw problems.permissionDenied(viaPersonalKey.refused)
    return viaPersonalKey
  } catch (err) {
    if (err instanceof ApiProblem) throw err
    deps.log('project lookup failed', err)
    throw problems.fetchTeamFailed({ cause: err })
  }
}
