import { cohortPersonCsvRow, type CohortPerson } from '@burrow/contracts'
import type { ProcedurePath } from './router'
import type { ThrottleClass } from './throttle'
import type { Scope } from '@burrow/contracts'

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
  /**
   * What a personal API key must carry to call the route (PostHog's scope of the resource and
   * action; a `:write` scope grants its `:read`). Every row declares one.
   */
  scope: Scope
  /**
   * The rate limit the route counts against: the private API's (480 a minute, 4,800 an hour per
   * key, by default) unless named. `query`: PostHog's lower limits of its query endpoint (240 a
   * minute, 2,400 an hour).
   */
  throttle?: ThrottleClass
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
  /** The CSV's columns sorted by name (PostHog's renderer without a header), rather than in the order they first appear. */
  csvSortedColumns?: boolean
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
  {
    method: 'GET',
    path: '/api/projects/',
    procedure: 'projects.list',
    scope: 'project:read',
    summary: 'List projects',
    query: true,
    paginated: true,
  },
  {
    method: 'POST',
    path: '/api/projects/',
    procedure: 'projects.create',
    scope: 'project:write',
    summary: 'Create a project',
    body: 'fields',
    status: 201,
  },
  { method: 'GET', path: '/api/projects/:id/', procedure: 'projects.get', scope: 'project:read', summary: 'Retrieve a project' },
  {
    method: 'PATCH',
    path: '/api/projects/:id/',
    procedure: 'projects.update',
    scope: 'project:write',
    summary: 'Update a project',
    body: 'data',
  },
  {
    method: 'PUT',
    path: '/api/projects/:id/',
    procedure: 'projects.update',
    scope: 'project:write',
    summary: 'Update a project',
    body: 'data',
  },
  {
    method: 'DELETE',
    path: '/api/projects/:id/',
    procedure: 'projects.delete',
    scope: 'project:write',
    summary: 'Delete a project and its events',
    status: 204,
  },

  {
    method: 'POST',
    path: `${projectScoped}/query/`,
    procedure: 'query.run',
    scope: 'query:read',
    throttle: 'query',
    summary: 'Run an analytics query',
    body: 'fields',
  },
  {
    method: 'GET',
    path: `${projectScoped}/query/:id/`,
    procedure: 'query.status',
    scope: 'query:read',
    throttle: 'query',
    summary: 'Poll an async query',
  },
  {
    method: 'DELETE',
    path: `${projectScoped}/query/:id/`,
    procedure: 'query.cancel',
    scope: 'query:read',
    summary: 'Cancel an async query',
    status: 204,
  },
  {
    method: 'GET',
    path: `${projectScoped}/cohorts/`,
    procedure: 'cohorts.list',
    scope: 'cohort:read',
    summary: 'List cohorts',
    query: true,
    paginated: true,
  },
  {
    method: 'POST',
    path: `${projectScoped}/cohorts/`,
    procedure: 'cohorts.create',
    scope: 'cohort:write',
    summary: 'Create a cohort',
    body: 'fields',
    status: 201,
  },
  {
    method: 'GET',
    path: `${projectScoped}/cohorts/:id/`,
    procedure: 'cohorts.get',
    scope: 'cohort:read',
    summary: 'Retrieve a cohort',
    forbidDestroy: true,
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/cohorts/:id/`,
    procedure: 'cohorts.update',
    scope: 'cohort:write',
    summary: 'Update or soft-delete a cohort',
    body: 'data',
  },
  {
    method: 'GET',
    path: `${projectScoped}/cohorts/:id/persons/`,
    procedure: 'cohorts.persons',
    scope: 'cohort:read',
    summary: "List a cohort's persons",
    query: true,
    paginated: true,
    csv: true,
    csvRow: (member) => cohortPersonCsvRow(member as CohortPerson),
    csvSortedColumns: true,
  },

  {
    method: 'GET',
    path: `${projectScoped}/insights/`,
    procedure: 'insights.list',
    scope: 'insight:read',
    throttle: 'query',
    summary: 'List insights, each with its result',
    query: true,
    paginated: true,
  },
  {
    method: 'POST',
    path: `${projectScoped}/insights/`,
    procedure: 'insights.create',
    scope: 'insight:write',
    summary: 'Create an insight',
    body: 'fields',
    status: 201,
  },
  {
    method: 'GET',
    path: `${projectScoped}/insights/:id/`,
    procedure: 'insights.get',
    scope: 'insight:read',
    throttle: 'query',
    summary: 'Retrieve an insight with its result (`refresh=true` computes it anew)',
    query: true,
    forbidDestroy: true,
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/insights/:id/`,
    procedure: 'insights.update',
    scope: 'insight:write',
    summary: 'Update or soft-delete an insight, or set its dashboards',
    body: 'data',
  },
  {
    method: 'GET',
    path: `${projectScoped}/dashboards/`,
    procedure: 'dashboards.list',
    scope: 'dashboard:read',
    summary: 'List dashboards',
    query: true,
    paginated: true,
  },
  {
    method: 'POST',
    path: `${projectScoped}/dashboards/`,
    procedure: 'dashboards.create',
    scope: 'dashboard:write',
    summary: 'Create a dashboard',
    body: 'fields',
    status: 201,
  },
  {
    method: 'GET',
    path: `${projectScoped}/dashboards/:id/`,
    procedure: 'dashboards.get',
    scope: 'dashboard:read',
    throttle: 'query',
    summary: "Retrieve a dashboard with its tiles and their insights' results",
    query: true,
    forbidDestroy: true,
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/dashboards/:id/`,
    procedure: 'dashboards.update',
    scope: 'dashboard:write',
    summary: 'Update or soft-delete a dashboard',
    body: 'data',
  },

  {
    method: 'GET',
    path: `${projectScoped}/actions/`,
    procedure: 'actions.list',
    scope: 'action:read',
    summary: 'List live actions, the most recent first',
    query: true,
    paginated: true,
  },
  {
    method: 'POST',
    path: `${projectScoped}/actions/`,
    procedure: 'actions.create',
    scope: 'action:write',
    summary: 'Create an action',
    body: 'fields',
    status: 201,
  },
  {
    method: 'GET',
    path: `${projectScoped}/actions/:id/`,
    procedure: 'actions.get',
    scope: 'action:read',
    summary: 'Retrieve an action with its steps',
    forbidDestroy: true,
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/actions/:id/`,
    procedure: 'actions.update',
    scope: 'action:write',
    summary: 'Update or soft-delete an action',
    body: 'data',
  },
  {
    method: 'PUT',
    path: `${projectScoped}/actions/:id/`,
    procedure: 'actions.update',
    scope: 'action:write',
    summary: 'Update or soft-delete an action',
    body: 'data',
  },

  {
    method: 'GET',
    path: `${projectScoped}/event_definitions/`,
    procedure: 'eventDefinitions.list',
    scope: 'event_definition:read',
    summary: 'List event definitions',
    query: true,
    paginated: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/event_definitions/:id/`,
    procedure: 'eventDefinitions.get',
    scope: 'event_definition:read',
    summary: 'Retrieve an event definition',
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/event_definitions/:id/`,
    procedure: 'eventDefinitions.update',
    scope: 'event_definition:write',
    summary: 'Update an event definition',
    body: 'data',
  },

  {
    method: 'GET',
    path: `${projectScoped}/events/`,
    procedure: 'events.list',
    scope: 'query:read',
    summary: 'List events',
    query: true,
    paginated: true,
    csv: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/events/values/`,
    procedure: 'events.values',
    scope: 'query:read',
    summary: 'Values of an event property',
    query: true,
    csv: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/events/:id/`,
    procedure: 'events.get',
    scope: 'query:read',
    summary: 'Retrieve an event',
    query: true,
    csv: true,
  },

  {
    method: 'GET',
    path: `${projectScoped}/persons/`,
    procedure: 'persons.list',
    scope: 'person:read',
    summary: 'List persons (search, distinct_id, properties)',
    query: true,
    paginated: true,
    csv: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/persons/cohorts/`,
    procedure: 'persons.cohorts',
    scope: 'person:read',
    summary: "List the cohorts a person is in (person_id: the person's id or uuid)",
    query: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/persons/:id/`,
    procedure: 'persons.get',
    scope: 'person:read',
    summary: 'Retrieve a person by id or uuid',
  },
  {
    method: 'DELETE',
    path: `${projectScoped}/persons/:id/`,
    procedure: 'persons.delete',
    scope: 'person:write',
    summary: 'Delete a person (and with delete_events=true, its events)',
    query: true,
    status: 204,
  },

  {
    method: 'GET',
    path: `${projectScoped}/feature_flags/`,
    procedure: 'featureFlags.list',
    scope: 'feature_flag:read',
    summary: 'List feature flags (not deleted)',
    query: true,
    paginated: true,
  },
  {
    method: 'POST',
    path: `${projectScoped}/feature_flags/`,
    procedure: 'featureFlags.create',
    scope: 'feature_flag:write',
    summary: 'Create a feature flag',
    body: 'fields',
    status: 201,
  },
  {
    method: 'GET',
    path: `${projectScoped}/feature_flags/:id/`,
    procedure: 'featureFlags.get',
    scope: 'feature_flag:read',
    summary: 'Retrieve a feature flag',
  },
  {
    method: 'GET',
    path: `${projectScoped}/feature_flags/local_evaluation/`,
    procedure: 'featureFlags.localEvaluation',
    scope: 'feature_flag:read',
    summary: 'Flag definitions for SDKs that evaluate flags themselves',
    query: true,
    etag: true,
  },
  {
    method: 'GET',
    path: '/api/feature_flag/local_evaluation/',
    procedure: 'featureFlags.localEvaluation',
    scope: 'feature_flag:read',
    operationId: 'featureFlags_localEvaluation_legacy',
    summary: 'Flag definitions for local evaluation (legacy path; the project of `token`)',
    query: true,
    etag: true,
  },
  {
    method: 'GET',
    path: '/flags/definitions/',
    procedure: 'featureFlags.localEvaluation',
    scope: 'feature_flag:read',
    operationId: 'featureFlags_definitions',
    summary: 'Flag definitions for local evaluation (the project of `token`)',
    query: true,
    etag: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/feature_flags/:id/remote_config/`,
    procedure: 'featureFlags.remoteConfig',
    scope: 'feature_flag:read',
    summary: "A remote configuration flag's payload, by id or key (what posthog-node's getRemoteConfigPayload asks)",
    undefinedIsNotFound: true,
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/feature_flags/:id/`,
    procedure: 'featureFlags.update',
    scope: 'feature_flag:write',
    summary: 'Update or soft-delete a feature flag (a new version)',
    body: 'data',
  },
  {
    method: 'GET',
    path: '/api/organizations/:organization_id/plugins/',
    procedure: 'plugins.list',
    scope: 'plugin:read',
    summary: 'List the plugins available',
    query: true,
    paginated: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/plugin_configs/`,
    procedure: 'pluginConfigs.list',
    scope: 'plugin:read',
    summary: 'List plugin configs',
    query: true,
    paginated: true,
  },
  {
    method: 'POST',
    path: `${projectScoped}/plugin_configs/`,
    procedure: 'pluginConfigs.create',
    scope: 'plugin:write',
    summary: 'Create a plugin config',
    body: 'fields',
    status: 201,
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/plugin_configs/rearrange/`,
    procedure: 'pluginConfigs.rearrange',
    scope: 'plugin:write',
    summary: 'Set the order of enabled plugin configs',
    body: 'data',
  },
  {
    method: 'GET',
    path: `${projectScoped}/plugin_configs/:parent_lookup_plugin_config_id/logs/`,
    procedure: 'pluginConfigs.logs',
    scope: 'plugin:read',
    summary: "A plugin config's log entries, newest first",
    query: true,
    paginated: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/plugin_configs/:id/`,
    procedure: 'pluginConfigs.get',
    scope: 'plugin:read',
    summary: 'Retrieve a plugin config',
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/plugin_configs/:id/`,
    procedure: 'pluginConfigs.update',
    scope: 'plugin:write',
    summary: 'Update a plugin config',
    body: 'data',
  },
  {
    method: 'DELETE',
    path: `${projectScoped}/plugin_configs/:id/`,
    procedure: 'pluginConfigs.delete',
    scope: 'plugin:write',
    summary: 'Delete a plugin config',
    status: 204,
  },
  {
    method: 'GET',
    path: `${projectScoped}/plugin_configs/:id/frontend/`,
    procedure: 'pluginConfigs.frontend',
    scope: 'plugin:read',
    summary: "A plugin config's frontend module",
    contentType: 'application/javascript; charset=UTF-8',
  },
  {
    method: 'POST',
    path: `${projectScoped}/plugin_configs/:id/job/`,
    procedure: 'pluginConfigs.job',
    scope: 'plugin:write',
    summary: "Enqueue one of a plugin's jobs",
    body: 'data',
  },

  {
    method: 'GET',
    path: `${projectScoped}/ingestion_warnings/`,
    procedure: 'ingestionWarnings.list',
    scope: 'ingestion_warning:read',
    summary: 'Ingestion warnings of the last 30 days, by type',
    query: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/groups/`,
    procedure: 'groups.list',
    scope: 'group:read',
    summary: 'List the groups of a type (group_type_index), newest first, 100 a page from a cursor',
    query: true,
    paginated: 'cursor',
  },
  {
    method: 'POST',
    path: `${projectScoped}/groups/`,
    procedure: 'groups.create',
    scope: 'group:write',
    summary: 'Create a group of a registered type',
    body: 'fields',
    status: 201,
  },
  {
    method: 'GET',
    path: `${projectScoped}/groups/find/`,
    procedure: 'groups.find',
    scope: 'group:read',
    summary: 'Find a group by type and key',
    query: true,
  },
  {
    method: 'POST',
    path: `${projectScoped}/groups/update_property/`,
    procedure: 'groups.updateProperty',
    scope: 'group:write',
    summary: 'Set a property (key, value) of the group named by group_type_index and group_key',
    query: true,
    body: 'data',
  },
  {
    method: 'POST',
    path: `${projectScoped}/groups/delete_property/`,
    procedure: 'groups.deleteProperty',
    scope: 'group:write',
    summary: 'Remove a property ($unset) of the group named by group_type_index and group_key',
    query: true,
    body: 'data',
  },
  {
    method: 'GET',
    path: `${projectScoped}/groups/property_definitions/`,
    procedure: 'groups.propertyDefinitions',
    scope: 'group:read',
    summary: "Each group type's property keys with how many groups have them",
  },
  {
    method: 'GET',
    path: `${projectScoped}/groups/property_values/`,
    procedure: 'groups.propertyValues',
    scope: 'group:read',
    summary: "A group property's most common values",
    query: true,
  },
  {
    method: 'GET',
    path: `${projectScoped}/groups_types/`,
    procedure: 'groupTypes.list',
    scope: 'group:read',
    summary: "List the project's group types",
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/groups_types/update_metadata/`,
    procedure: 'groupTypes.updateMetadata',
    scope: 'group:write',
    summary: 'Name group types (a list of group_type_index, name_singular, name_plural)',
    body: 'list',
  },
  {
    method: 'PUT',
    path: `${projectScoped}/groups_types/set_default_columns/`,
    procedure: 'groupTypes.setDefaultColumns',
    scope: 'group:write',
    summary: "Set the property columns a group type's list shows",
    body: 'fields',
  },
  {
    method: 'DELETE',
    path: `${projectScoped}/groups_types/:group_type_index/`,
    procedure: 'groupTypes.delete',
    scope: 'group:write',
    summary: 'Forget a group type (its groups stay)',
    status: 204,
  },

  {
    method: 'GET',
    path: `${projectScoped}/early_access_feature/`,
    procedure: 'earlyAccessFeatures.list',
    scope: 'early_access_feature:read',
    summary: 'List early access features',
    query: true,
    paginated: true,
  },
  {
    method: 'POST',
    path: `${projectScoped}/early_access_feature/`,
    procedure: 'earlyAccessFeatures.create',
    scope: 'early_access_feature:write',
    summary: 'Create an early access feature and its flag',
    body: 'fields',
    status: 201,
  },
  {
    method: 'GET',
    path: `${projectScoped}/early_access_feature/:id/`,
    procedure: 'earlyAccessFeatures.get',
    scope: 'early_access_feature:read',
    summary: 'Retrieve an early access feature',
  },
  {
    method: 'PATCH',
    path: `${projectScoped}/early_access_feature/:id/`,
    procedure: 'earlyAccessFeatures.update',
    scope: 'early_access_feature:write',
    summary: 'Update an early access feature',
    body: 'data',
  },
  {
    method: 'PUT',
    path: `${projectScoped}/early_access_feature/:id/`,
    procedure: 'earlyAccessFeatures.update',
    scope: 'early_access_feature:write',
    summary: 'Update an early access feature',
    body: 'data',
  },
  {
    method: 'DELETE',
    path: `${projectScoped}/early_access_feature/:id/`,
    procedure: 'earlyAccessFeatures.delete',
    scope: 'early_access_feature:write',
    summary: 'Delete an early access feature (its flag stays, without the enrolment condition)',
    status: 204,
  },

  {
    method: 'GET',
    path: '/api/users/@me/',
    procedure: 'users.me',
    scope: 'user:read',
    summary: 'The current user, their organization and project (deprecated)',
    headers: DEPRECATED_SINCE_2021_04_05,
  },

  {
    method: 'GET',
    path: '/api/personal_api_keys/',
    procedure: 'personalApiKeys.list',
    scope: 'personal_api_key:read',
    summary: "The current user's personal API keys, newest first (values masked)",
  },
  {
    method: 'POST',
    path: '/api/personal_api_keys/',
    procedure: 'personalApiKeys.create',
    scope: 'personal_api_key:write',
    summary: 'Create a personal API key; its value is in this answer only',
    body: 'fields',
    status: 201,
  },
  {
    method: 'GET',
    path: '/api/personal_api_keys/:id/',
    procedure: 'personalApiKeys.get',
    scope: 'personal_api_key:read',
    summary: 'Retrieve a personal API key (`@current`: the key of the request)',
  },
  {
    method: 'PATCH',
    path: '/api/personal_api_keys/:id/',
    procedure: 'personalApiKeys.update',
    scope: 'personal_api_key:write',
    summary: "Update a key's label, scopes, projects or organizations",
    body: 'data',
  },
  {
    method: 'PUT',
    path: '/api/personal_api_keys/:id/',
    procedure: 'personalApiKeys.update',
    scope: 'personal_api_key:write',
    summary: "Update a key's label, scopes, projects or organizations",
    body: 'data',
  },
  {
    method: 'DELETE',
    path: '/api/personal_api_keys/:id/',
    procedure: 'personalApiKeys.delete',
    scope: 'personal_api_key:write',
    summary: 'Delete a personal API key: it stops working at once',
    status: 204,
  },
  {
    method: 'POST',
    path: '/api/personal_api_keys/:id/roll/',
    procedure: 'personalApiKeys.roll',
    scope: 'personal_api_key:write',
    summary: 'Give a key a new value (in this answer only); the old value stops working at once',
  },

  {
    method: 'GET',
    path: '/api/organizations/:organization_id/members/',
    procedure: 'organizationMembers.list',
    scope: 'organization_member:read',
    summary: "The organization's members with their levels (1 member, 8 admin, 15 owner)",
  },
  {
    method: 'PATCH',
    path: '/api/organizations/:organization_id/members/:user_id/',
    procedure: 'organizationMembers.update',
    scope: 'organization_member:write',
    summary: "Change a member's level (user uuid, id or `@me`)",
    body: 'data',
  },
  {
    method: 'DELETE',
    path: '/api/organizations/:organization_id/members/:user_id/',
    procedure: 'organizationMembers.remove',
    scope: 'organization_member:write',
    summary: 'Remove a member, or leave the organization (`@me`)',
    status: 204,
  },
  {
    method: 'GET',
    path: '/api/organizations/:organization_id/invites/',
    procedure: 'organizationInvites.list',
    scope: 'organization_member:read',
    summary: "The organization's invites, newest first",
  },
  {
    method: 'POST',
    path: '/api/organizations/:organization_id/invites/',
    procedure: 'organizationInvites.create',
    scope: 'organization_member:write',
    summary: 'Invite an email address at a level',
    body: 'fields',
    status: 201,
  },
  {
    method: 'DELETE',
    path: '/api/organizations/:organization_id/invites/:id/',
    procedure: 'organizationInvites.delete',
    scope: 'organization_member:write',
    summary: 'Withdraw an invite',
    status: 204,
  },
  {
    method: 'POST',
    path: '/api/signup/:invite_id/',
    procedure: 'organizationInvites.accept',
    scope: 'user:write',
    summary:
      "Accept an invite: the key's user (the invite's email) joins its organization. Without a key or session, the link's holder signs up instead (`first_name`, `password`), as PostHog's invite page does",
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
