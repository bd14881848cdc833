import { LocalTtlCache } from '@burrow/cache'
import { projects } from '@burrow/postgres'
import { findCallerByPersonalApiKey } from '../access/accounts'
import { assertProjectInReach, assertScope } from '../access/access'
import { ApiProblem, type Scope } from '@burrow/contracts'
import type { CoreDeps } from '../deps'
import { serialId } from '../ids'

/** A personal key's project, or why not: unknown key, no such project of the user's, or a key without the scope or reach. */
export type PersonalKeyProject = IngestionProject | 'invalid_key' | 'invalid_project' | { refused: string }

/** What ingestion needs to know about the project behind a token. */
export interface IngestionProject {
  id: number
  anonymizeIps: boolean
  /** Cookieless server hash mode: 0 (or absent) off, 1 stateless, 2 stateful. */
  cookielessMode?: number
  /** The project's timezone, whose calendar days pick cookieless salts. */
  timezone?: string
}

function ingestionProject(row: projects.ProjectRow): IngestionProject {
  return { id: row.id, anonymizeIps: row.anonymize_ips, cookielessMode: row.cookieless_server_hash_mode, timezone: row.timezone }
}

const SHARED_TTL_SECONDS = 300
const LOCAL_FRESH_MS = 30_000
const UNKNOWN_FRESH_MS = 5_000

const TOKEN_KEY_PREFIX = 'project-token:'

function cacheKey(token: string): string {
  return `${TOKEN_KEY_PREFIX}${token}`
}

/** Where a resolver looks up what its memory does not hold, and hears of changed projects. */
export interface ProjectSource {
  load(token: string): Promise<IngestionProject | null>
  resolveWithPersonalKey(key: string, projectId: string, scope: Scope): Promise<PersonalKeyProject>
  /** Calls `listener` with the token of each project changed or deleted anywhere. */
  onInvalidation(listener: (token: string) => void): void
}

/**
 * Resolves capture tokens to projects: this thread's memory first, then its source (the shared
 * cache, then PostgreSQL; for a capture thread, the main thread's resolver). Entries are
 * served stale while they refresh, so capture keeps working on known tokens through a brief
 * database outage. A project change or deletion invalidates its token on every instance
 * (through Redis pub/sub when configured).
 */
export class ProjectTokenResolver {
  private readonly local: LocalTtlCache<IngestionProject | null>
  private readonly listeners: Array<(token: string) => void> = []

  /** A resolver backed by the shared cache and PostgreSQL. */
  static fromStorage(deps: CoreDeps): ProjectTokenResolver {
    return new ProjectTokenResolver(storageSource(deps))
  }

  constructor(private readonly source: ProjectSource) {
    this.local = new LocalTtlCache((token) => source.load(token), {
      freshMs: LOCAL_FRESH_MS,
      maxEntries: 100_000,
      freshMsFor: (project) => (project ? LOCAL_FRESH_MS : UNKNOWN_FRESH_MS),
    })
    source.onInvalidation((token) => {
      this.local.delete(token)
      for (const listener of this.listeners) listener(token)
    })
  }

  /** Calls `listener` with each token this resolver forgets because its project changed. */
  onInvalidation(listener: (token: string) => void): void {
    this.listeners.push(listener)
  }

  /** The project, or null when no project has this token. */
  resolve(token: string): Promise<IngestionProject | null> {
    return this.local.get(token)
  }

  /** The project if this process knows the token already (null: known not to exist), without waiting. */
  peek(token: string): IngestionProject | null | undefined {
    return this.local.peek(token)
  }

  /**
   * The project for a request authenticated with a personal API key and a project id: the
   * key must belong to a member of the project's organization, carry `scope` and reach the project.
   */
  resolveWithPersonalKey(key: string, projectId: string, scope: Scope): Promise<PersonalKeyProject> {
    return this.source.resolveWithPersonalKey(key, projectId, scope)
  }
}

function storageSource(deps: CoreDeps): ProjectSource {
  return {
    async load(token) {
      const shared = await deps.cache.get(cacheKey(token))
      if (shared !== undefined) return JSON.parse(shared) as IngestionProject | null
      const row = await projects.findProjectByToken(deps.sql, token)
      const project = row ? ingestionProject(row) : null
      await deps.cache.set(cacheKey(token), JSON.stringify(project), project ? SHARED_TTL_SECONDS : 5)
      return project
    },
    async resolveWithPersonalKey(key, projectId, scope) {
      const caller = await findCallerByPersonalApiKey(deps.sql, key)
      if (!caller) return 'invalid_key'
      if (serialId(projectId) === null) return 'invalid_project'
      const row = await projects.findProjectForUser(deps.sql, Number(projectId), caller.id)
      if (!row) return 'invalid_project'
      try {
        assertScope(caller, scope)
        assertProjectInReach(caller, row)
      } catch (err) {
        // The refusal's words go back as data: a capture thread receives this through a message.
        if (err instanceof ApiProblem) return { refused: err.body.detail }
        throw err
      }
      return ingestionProject(row)
    },
    onInvalidation(listener) {
      deps.cache.onInvalidation((key) => {
        if (key.startsWith(TOKEN_KEY_PREFIX)) listener(key.slice(TOKEN_KEY_PREFIX.length))
      })
    },
  }
}

/** The project with this id as ingestion sees it, or null (dead-letter replay knows projects by id). */
export async function findIngestionProject(deps: Pick<CoreDeps, 'sql'>, id: number): Promise<IngestionProject | null> {
  const row = await projects.findProjectById(deps.sql, id)
  return row ? ingestionProject(row) : null
}

export async function invalidateProjectToken(deps: CoreDeps, token: string): Promise<void> {
  try {
    await deps.cache.delete(cacheKey(token))
    await deps.cache.publishInvalidation(cacheKey(token))
  } catch (err) {
    // The entry expires by itself; log so a lasting cache outage is visible.
    deps.log(`could not invalidate cached project token: ${String(err)}`)
  }
}
