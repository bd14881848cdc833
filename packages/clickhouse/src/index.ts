export { connectClickHouse, type ClickHouse, type ClickHouseOptions } from './connect'
export type { EncodedFormat } from './encodedRows'
export { migrateClickHouse, schemaStatements } from './migrate'
export { MUTATIONS_SYNC, TableLayout } from './layout'
export { applyRetention, type Retention } from './retention'
export { toClickHouseDateTime, toClickHouseDateTimeUs, clickHouseDateTimeToIso } from './datetime'
export * as events from './tables/events'
export * as deadLetterQueue from './tables/deadLetterQueue'
export * as pluginLogEntries from './tables/pluginLogEntries'
export * as persons from './tables/persons'
export * as cohortPeople from './tables/cohortPeople'
export * as ingestionWarnings from './tables/ingestionWarnings'
export type { PersonCopy, DistinctIdCopy } from './tables/persons'
export type { EventRow, EventRowToEncode, StoredEvent, EventsQuery } from './tables/events'
export type { DeadLetterRow, StoredDeadLetter } from './tables/deadLetterQueue'
export type { PluginLogRow } from './tables/pluginLogEntries'
export type { IngestionWarningRow } from './tables/ingestionWarnings'
export type { PropertyCondition, PropertyExpression, PropertyGroup, CohortCondition, BehaviouralCondition } from './propertyConditions'
export { NIL_UUID } from './tables/events'
export {
  clickHouseErrorCode,
  ClickHouseTimedOut,
  ClickHouseUnavailable,
  isClickHouseRefusal,
  isClickHouseUnavailable,
  isDataRejection,
  isQueryTimeout,
} from './errors'
export { asTenant, type Tenant } from './tenant'
export { StatementCancelled, type ClickHouseReader, type ReadParams } from './readerPool'
export { deleteTeamData } from './teamData'
export { DEFAULT_MATERIALIZED_PROPERTIES, ensureMaterializedProperties, GROUP_COLUMNS, materializedColumns } from './materializedProperties'
export { detachedParts, dropDetachedPart, type DetachedPart } from './detachedParts'
export * as groups from './tables/groups'
export type { GroupCopy } from './tables/groups'
export { SqlParams, eventPropertiesSql, currentPersonsSql, currentDistinctIdsSql } from './propertyConditions'
