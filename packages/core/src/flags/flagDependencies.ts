import { problems } from '@burrow/contracts'
import { featureFlags, type FeatureFlagRow } from '@burrow/postgres'
import type { CoreDeps } from '../deps'

interface Filters {
  groups?: Array<{ properties?: Array<{ key?: string | number | null; type?: string }> | null }> | null
}

const invalid = (detail: string) => problems.validation('filters', detail, 'invalid_input')

/** The flag ids (as written) that a flag's conditions depend on through `flag_evaluates_to`. */
function dependencyReferences(filters: unknown): string[] {
  const references: string[] = []
  for (const condition of (filters as Filters | null)?.groups ?? []) {
    for (const property of condition.properties ?? []) {
      if (property.type === 'flag' && property.key !== undefined && property.key !== null && property.key !== '') {
        references.push(String(property.key))
      }
    }
  }
  return references
}

/**
 * Checks a flag's dependencies as PostHog does when it is saved: each names, by id, an active
 * flag of the project, the flag itself is not among them, and no chain of dependencies leads
 * back to it. Each failure is a 400 naming `filters`.
 */
export async function checkFlagDependencies(deps: CoreDeps, projectId: number, flagKey: string, filters: unknown): Promise<void> {
  const references = dependencyReferences(filters)
  if (references.length === 0) return
  const rows = await featureFlags.liveFeatureFlags(deps.sql, projectId)
  const byId = new Map(rows.map((row) => [row.id, row]))
  const byKey = new Map(rows.map((row) => [row.key, row]))
  const keyOf = (reference: string): string => {
    const id = /^-?\d+$/.test(reference.trim()) ? Number(reference) : Number.NaN
    if (!Number.isSafeInteger(id)) {
      throw invalid(`Flag dependencies must reference flag IDs (integers), not flag keys. Invalid reference: '${reference}'`)
    }
    const row = byId.get(id)
    if (!row) throw invalid(`Flag dependency references non-existent flag with ID ${id}`)
    if (!row.active) {
      throw invalid(
        `Cannot create dependency on disabled flag '${row.key}' (ID: ${id}). Flag dependencies must reference active flags only.`,
      )
    }
    return row.key
  }
  const direct = new Set(references.map(keyOf))
  if (direct.has(flagKey)) throw invalid(`Feature flag '${flagKey}' cannot depend on itself`)

  const visit = (key: string, path: string[]): void => {
    const at = path.indexOf(key)
    if (at !== -1) throw invalid(`Circular dependency detected: ${[...path.slice(at), key].join(' → ')}`)
    const row: FeatureFlagRow | undefined = byKey.get(key)
    if (!row) return
    for (const reference of new Set(dependencyReferences(row.filters))) {
      const next = byId.get(Number(reference))
      if (next) visit(next.key, [...path, key])
    }
  }
  for (const key of direct) visit(key, [flagKey])
}
