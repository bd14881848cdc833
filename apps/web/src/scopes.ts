import type { ScopeObject } from '@burrow/contracts'

/**
 * The scope objects a personal API key may be given, as the service names them. Typed against
 * the service's own list: one it adds or renames fails the type check here until it is listed.
 */
const SCOPES: Record<ScopeObject, string> = {
  action: 'Actions',
  cohort: 'Cohorts',
  dashboard: 'Dashboards',
  early_access_feature: 'Early access features',
  event_definition: 'Event definitions',
  feature_flag: 'Feature flags',
  group: 'Groups',
  ingestion_warning: 'Ingestion warnings',
  insight: 'Insights',
  organization: 'Organization',
  organization_member: 'Organization members',
  person: 'People',
  personal_api_key: 'Personal API keys',
  plugin: 'Plugins',
  project: 'Project',
  query: 'Events and queries',
  user: 'User',
}

export const SCOPE_OBJECTS = Object.entries(SCOPES) as [ScopeObject, string][]

export type ScopeAccess = 'none' | 'read' | 'write'

/** The scopes of a key from a choice per object: `*` for everything, else `<object>:<action>` for each chosen. */
export function scopesFrom(all: boolean, access: Partial<Record<ScopeObject, ScopeAccess>>): string[] {
  if (all) return ['*']
  return Object.entries(access).flatMap(([object, action]) => (action === 'read' || action === 'write' ? [`${object}:${action}`] : []))
}
