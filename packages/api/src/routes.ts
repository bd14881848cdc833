import { cohortPersonCsvRow, type CohortPerson } from '@burrow/contracts'
import type { ProcedurePath } from './router'

/**
 * The REST facade: each row maps one method and path of the private API onto a tRPC
 * procedure and says where the procedure's input comes from. Path parameters always join
 * the input under their own names.
 */
export interface RestRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
  path: string
  procedure: ProcedurePath
  /** The OpenAPI operation's name, where the procedure is served at more than one path. */
  operationId?: string
  /** One line for the API's documentation. */
  summary: string
  /** The query string's parameters become input fields. */
  query?: boolean
  /** The JSON body becomes the input's fields, or its `data` field (beside the path parameters); `list`: a JSON array as `data`. */
  body?: 'fields' | 'data' | 'list'
  /** Success status; 200 unless given. */
  status?: 200 | 201 | 204
  /**
   * The procedure answers a page, which REST returns as the envelope with links: `true`, an offset
   * page with `count`; `'cursor'`, a cursor page as DRF's CursorPagination answers it (no count).
   */
  paginated?: boolean | 'cursor'
  /** `format=csv` (or `Accept: text/csv`) renders the results as CSV instead of JSON. */
  csv?: boolean
  /** DELETE at this path is a 405 without a body (PostHog's resources that are only soft-deleted). */
  forbidDestroy?: boolean
  /** Each result as its CSV row, where the export's columns differ from the JSON's. */
  csvRow?: (result: unknown) => Record<string, unknown>
  /** The procedure's result is the body itself, in this media type. */
  contentType?: string
  /** Extra response headers. */
  headers?: Record<string, string>
  /** The procedure answers undefined for what does not exist: a 404 without a body, as PostHog answers the route. */
  undefinedIsNotFound?: boolean
  /** The answer carries an ETag, and a request whose If-None-Match names it gets 304 without a body (SDKs polling definitions). */
  etag?: boolean
}

/** RFC 9745's Deprecation header: the current-user endpoint is deprecated since 2021-04-05. */
const DEPRECATED_SINCE_2021_04_05 = { deprecation: '@1617580800' }

const projectScoped = '/api/projects/:project_id'

export const restRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/projects/', procedure: 'projects.list', summary: 'List projects', query: true, paginated: true },
  { method: 'POST', path: '/api/projects/', procedure: 'projects.create', summary: 'Create a project', body: 'fields', status: 201 },
  { method: 'GET', path: '/api/projects/:id/', procedure: 'projects.get', summary: 'Retrieve a project' },
  { method: 'PATCH', path: '/api/projects/:id/', procedure: 'projects.update', summary: 'Update a project', body: 'data' },
  { method: 'PUT', path: '/api/projects/:id/', procedure: 'projects.update', summary: 'Update a project', body: 'data' },
  { method: 'DELETE', path: '/api/projects/:id/', procedure: 'projects.delete', summary: 'Delete a project and its events', status: 204 },

  { method: 'GET', path: `${projectScoped}/cohorts/`, procedure: 'cohorts.list', summary: 'List cohorts', query: true, paginated: true },
  {
    method: 'POST',
    path: `${projectScoped}/cohorts/`,
    procedure: 'cohorts.create',
    summary: 'Create a cohort',
    body: 'fields',
    status: 201,
  },
  { method: 'GET', path: `${projectScoped}/cohorts/:id/`, procedure: 'cohorts.get', summary: 'Retrieve a cohort', forbidDestroy: true },
  {
    method: 'PATCH',
    path: `${projectScoped}/cohorts/:id/`,
    procedure: 'cohorts.update',
    summary: 'Update or soft-delete a cohort',
    body: 'data',
  },
  {
    method: 'GET',
    path: `${projectScoped}/cohorts/:id/persons/`,
    procedure: 'cohorts.persons',
    summary: "List a cohort's persons",
    query: true,
    paginated: true,
    csv: true,
    csvRow: (member) => cohortPersonCsvRow(member as CohortPerson),
  },

  {
    method: 'GET',
    path: `${projectScoped}/event_definitions/`,
    procedure: 'eventDefinitions.list',
    summary: 'List event definitions',
    query: true,
    paginated: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/event_definitions/:id/`,
    procedure: 'eventDefinitions.get',
    summary: 'Retrieve an event definition',
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/event_definitions/:id/`,
    procedure: 'eventDefinitions.update',
    summary: 'Update an event definition',
    body: 'data',
  },

  {
    method: 'GET',
    path: `${projectScoped}/events/`,
    procedure: 'events.list',
    summary: 'List events',
    query: true,
    paginated: true,
    csv: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/events/values/`,
    procedure: 'events.values',
    summary: 'Values of an event property',
    query: true,
    csv: true,
  },
  { method: 'GET', path: `${projectScoped}/events/:id/`, procedure: 'events.get', summary: 'Retrieve an event', query: true, csv: true },

  {
    method: 'GET',
    path: `${projectScoped}/persons/`,
    procedure: 'persons.list',
    summary: 'List persons (search, distinct_id, properties)',
    query: true,
    paginated: true,
    csv: true,
  },
  { method: 'GET', path: `${projectScoped}/persons/:id/`, procedure: 'persons.get', summary: 'Retrieve a person by id or uuid' },
  {
    method: 'DELETE',
    path: `${projectScoped}/persons/:id/`,
    procedure: 'persons.delete',
    summary: 'Delete a person (and with delete_events=true, its events)',
    query: true,
    status: 204,
  },

  {
    method: 'GET',
    path: `${projectScoped}/feature_flags/`,
    procedure: 'featureFlags.list',
    summary: 'List feature flags (not deleted)',
    query: true,
    paginated: true,
  },
  {
    method: 'POST',
    path: `${projectScoped}/feature_flags/`,
    procedure: 'featureFlags.create',
    summary: 'Create a feature flag',
    body: 'fields',
    status: 201,
  },
  { method: 'GET', path: `${projectScoped}/feature_flags/:id/`, procedure: 'featureFlags.get', summary: 'Retrieve a feature flag' },
  {
    method: 'GET',
    path: `${projectScoped}/feature_flags/local_evaluation/`,
    procedure: 'featureFlags.localEvaluation',
    summary: 'Flag definitions for SDKs that evaluate flags themselves',
    query: true,
    etag: true,
  },
  {
    method: 'GET',
    path: '/api/feature_flag/local_evaluation/',
    procedure: 'featureFlags.localEvaluation',
    operationId: 'featureFlags_localEvaluation_legacy',
    summary: 'Flag definitions for local evaluation (legacy path; the project of `token`)',
    query: true,
    etag: true,
  },
  {
    method: 'GET',
    path: '/flags/definitions/',
    procedure: 'featureFlags.localEvaluation',
    operationId: 'featureFlags_definitions',
    summary: 'Flag definitions for local evaluation (the project of `token`)',
    query: true,
    etag: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/feature_flags/:id/remote_config/`,
    procedure: 'featureFlags.remoteConfig',
    summary: "A remote configuration flag's payload, by id or key (what posthog-node's getRemoteConfigPayload asks)",
    undefinedIsNotFound: true,
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/feature_flags/:id/`,
    procedure: 'featureFlags.update',
    summary: 'Update or soft-delete a feature flag (a new version)',
    body: 'data',
  },
  {
    method: 'GET',
    path: '/api/organizations/:organization_id/plugins/',
    procedure: 'plugins.list',
    summary: 'List the plugins available',
    query: true,
    paginated: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/plugin_configs/`,
    procedure: 'pluginConfigs.list',
    summary: 'List plugin configs',
    query: true,
    paginated: true,
  },
  {
    method: 'POST',
    path: `${projectScoped}/plugin_configs/`,
    procedure: 'pluginConfigs.create',
    summary: 'Create a plugin config',
    body: 'fields',
    status: 201,
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/plugin_configs/rearrange/`,
    procedure: 'pluginConfigs.rearrange',
    summary: 'Set the order of enabled plugin configs',
    body: 'data',
  },
  {
    method: 'GET',
    path: `${projectScoped}/plugin_configs/:parent_lookup_plugin_config_id/logs/`,
    procedure: 'pluginConfigs.logs',
    summary: "A plugin config's log entries, newest first",
    query: true,
    paginated: true,
  },
  { method: 'GET', path: `${projectScoped}/plugin_configs/:id/`, procedure: 'pluginConfigs.get', summary: 'Retrieve a plugin config' },
  {
    method: 'PATCH',
    path: `${projectScoped}/plugin_configs/:id/`,
    procedure: 'pluginConfigs.update',
    summary: 'Update a plugin config',
    body: 'data',
  },
  {
    method: 'DELETE',
    path: `${projectScoped}/plugin_configs/:id/`,
    procedure: 'pluginConfigs.delete',
    summary: 'Delete a plugin config',
    status: 204,
  },
  {
    method: 'GET',
    path: `${projectScoped}/plugin_configs/:id/frontend/`,
    procedure: 'pluginConfigs.frontend',
    summary: "A plugin config's frontend module",
    contentType: 'application/javascript; charset=UTF-8',
  },
  {
    method: 'POST',
    path: `${projectScoped}/plugin_configs/:id/job/`,
    procedure: 'pluginConfigs.job',
    summary: "Enqueue one of a plugin's jobs",
    body: 'data',
  },

  {
    method: 'GET',
    path: `${projectScoped}/ingestion_warnings/`,
    procedure: 'ingestionWarnings.list',
    summary: 'Ingestion warnings of the last 30 days, by type',
    query: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/groups/`,
    procedure: 'groups.list',
    summary: 'List the groups of a type (group_type_index), newest first, 100 a page from a cursor',
    query: true,
    paginated: 'cursor',
  },
  {
    method: 'POST',
    path: `${projectScoped}/groups/`,
    procedure: 'groups.create',
    summary: 'Create a group of a registered type',
    body: 'fields',
    status: 201,
  },
  { method: 'GET', path: `${projectScoped}/groups/find/`, procedure: 'groups.find', summary: 'Find a group by type and key', query: true },
  {
    method: 'POST',
    path: `${projectScoped}/groups/update_property/`,
    procedure: 'groups.updateProperty',
    summary: 'Set a property (key, value) of the group named by group_type_index and group_key',
    query: true,
    body: 'data',
  },
  {
    method: 'POST',
    path: `${projectScoped}/groups/delete_property/`,
    procedure: 'groups.deleteProperty',
    summary: 'Remove a property ($unset) of the group named by group_type_index and group_key',
    query: true,
    body: 'data',
  },
  {
    method: 'GET',
    path: `${projectScoped}/groups/property_definitions/`,
    procedure: 'groups.propertyDefinitions',
    summary: "Each group type's property keys with how many groups have them",
  },
  {
    method: 'GET',
    path: `${projectScoped}/groups/property_values/`,
    procedure: 'groups.propertyValues',
    summary: "A group property's most common values",
    query: true,
  },
  { method: 'GET', path: `${projectScoped}/groups_types/`, procedure: 'groupTypes.list', summary: "List the project's group types" },
  {
    method: 'PATCH',
    path: `${projectScoped}/groups_types/update_metadata/`,
    procedure: 'groupTypes.updateMetadata',
    summary: 'Name group types (a list of group_type_index, name_singular, name_plural)',
    body: 'list',
  },
  {
    method: 'PUT',
    path: `${projectScoped}/groups_types/set_default_columns/`,
    procedure: 'groupTypes.setDefaultColumns',
    summary: "Set the property columns a group type's list shows",
    body: 'fields',
  },
  {
    method: 'DELETE',
    path: `${projectScoped}/groups_types/:group_type_index/`,
    procedure: 'groupTypes.delete',
    summary: 'Forget a group type (its groups stay)',
    status: 204,
  },

  {
    method: 'GET',
    path: `${projectScoped}/early_access_feature/`,
    procedure: 'earlyAccessFeatures.list',
    summary: 'List early access features',
    query: true,
    paginated: true,
  },
  {
    method: 'POST',
    path: `${projectScoped}/early_access_feature/`,
    procedure: 'earlyAccessFeatures.create',
    summary: 'Create an early access feature and its flag',
    body: 'fields',
    status: 201,
  },
  {
    method: 'GET',
    path: `${projectScoped}/early_access_feature/:id/`,
    procedure: 'earlyAccessFeatures.get',
    summary: 'Retrieve an early access feature',
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/early_access_feature/:id/`,
    procedure: 'earlyAccessFeatures.update',
    summary: 'Update an early access feature',
    body: 'data',
  },
  {
    method: 'PUT',
    path: `${projectScoped}/early_access_feature/:id/`,
    procedure: 'earlyAccessFeatures.update',
    summary: 'Update an early access feature',
    body: 'data',
  },
  {
    method: 'DELETE',
    path: `${projectScoped}/early_access_feature/:id/`,
    procedure: 'earlyAccessFeatures.delete',
    summary: 'Delete an early access feature (its flag stays, without the enrolment condition)',
    status: 204,
  },

  {
    method: 'GET',
    path: '/api/users/@me/',
    procedure: 'users.me',
    summary: 'The current user, their organization and project (deprecated)',
    headers: DEPRECATED_SINCE_2021_04_05,
  },
]

/** The input a route's procedure receives for a request. */
export function routeInput(
  route: RestRoute,
  req: { params: Record<string, string>; query: Record<string, string | string[]>; body: unknown },
): Record<string, unknown> {
  const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {}
  return {
    ...(route.query ? req.query : {}),
    ...(route.body === 'fields' ? body : {}),
    ...(route.body === 'data' ? { data: body } : {}),
    ...(route.body === 'list' ? { data: req.body } : {}),
    ...req.params,
  }
}
