export {
  connectPostgres,
  DEFAULT_POSTGRES_DEADLINES,
  type Liveness,
  type PostgresDeadlines,
  type PostgresHandle,
  type PostgresOptions,
  type Pool,
  type Sql,
} from './connect'
export { migratePostgres, whileClickHouseMigrationLocked } from './migrate'
export { isPostgresUnavailable, isTransientError, PostgresUnavailable } from './errors'
export { copyServerPassword, dataDirectoryProblem, startEmbeddedPostgres } from './embedded'
export * as organizations from './queries/organizations'
export * as users from './queries/users'
export * as consoleSessions from './queries/consoleSessions'
export * as personalApiKeys from './queries/personalApiKeys'
export * as projects from './queries/projects'
export * as eventDefinitions from './queries/eventDefinitions'
export * as cohorts from './queries/cohorts'
export * as pluginConfigs from './queries/pluginConfigs'
export type { OrganizationRow } from './queries/organizations'
export type { UserRow } from './queries/users'
export type { ProjectRow, ProjectWrite } from './queries/projects'
export type { EventDefinitionRow } from './queries/eventDefinitions'
export type { CohortRow } from './queries/cohorts'
export type { PluginConfigRow, PluginJobRow } from './queries/pluginConfigs'
export * as pluginAppMetrics from './queries/pluginAppMetrics'
export * as pluginWebhookOutbox from './queries/pluginWebhookOutbox'
export type { LeasedDelivery, OutboxEntry } from './queries/pluginWebhookOutbox'
export * as featureFlags from './queries/featureFlags'
export type { FeatureFlagRow } from './queries/featureFlags'
export * as persons from './queries/persons'
export type {
  FlagPerson,
  NewPerson,
  PersonRow,
  PersonWithDistinctIds,
  PersonWrites,
  PersonRef,
  PropertyChange,
  DistinctIdRow,
  MergePerson,
  MergeState,
  MergedPerson,
  MergePlan,
  MergePolicy,
} from './queries/persons'
export * as groupTypes from './queries/groupTypes'
export * as cookielessSalts from './queries/cookielessSalts'
export * as groups from './queries/groups'
export type { GroupRow, GroupUpdate } from './queries/groups'
export * as earlyAccessFeatures from './queries/earlyAccessFeatures'
export type { EarlyAccessFeatureRow } from './queries/earlyAccessFeatures'
export type { PersonalApiKeyRow, PersonalApiKeyGrant } from './queries/personalApiKeys'
export * as organizationInvites from './queries/organizationInvites'
export type { OrganizationInviteRow } from './queries/organizationInvites'
export type { MembershipRow } from './queries/organizations'
export * as insights from './queries/insights'
export type { InsightRow } from './queries/insights'
export * as dashboards from './queries/dashboards'
export type { DashboardRow, DashboardTileRow } from './queries/dashboards'
export * as actions from './queries/actions'
export type { ActionRow, ActionStepRow } from './queries/actions'
