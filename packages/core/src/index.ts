export * as accounts from './access/accounts'
export * as consoleAuth from './access/consoleAuth'
export { signInGuard, type SignInGuard } from './access/consoleAuth'
export * as cohorts from './cohorts/cohorts'
export * as eventDefinitions from './events/eventDefinitions'
export * as events from './events/events'
export * as featureFlags from './flags/featureFlags'
export * as organizations from './access/organizations'
export * as persons from './persons/persons'
export * as ingestionWarnings from './events/ingestionWarnings'
export * as projects from './projects/projects'
export { describeMe } from './access/me'
export type { CoreDeps } from './deps'
export {
  ProjectTokenResolver,
  type IngestionProject,
  type ProjectSource,
  type PersonalKeyProject,
  invalidateProjectToken,
  findIngestionProject,
} from './projects/projectTokens'
export { EventDefinitionTracker } from './events/eventDefinitionTracker'
export { cookielessDays, cookielessSalt, cookielessState } from './cookielessSalts'
export { elementsFromChain } from './events/elementsChain'
export { parsePropertyFilters } from './events/propertyFilters'
export { SERVICE_VERSION } from './version'
export { asTenant, isQueryTimeout } from '@burrow/clickhouse'
export { isDependencyUnavailable } from './dependencyUnavailable'
export * as keys from './access/keys'
export { FlagDefinitionsResolver, type ProjectFlags } from './flags/flagDefinitions'
export { decodePathSegment, isUuid, serialIdOrNotFound } from './ids'
export { mapJsonText } from './jsonText'
export { pathOfNul, replaceNul, withoutNul } from './nulCharacters'
export { CohortCalculator, calculateCohort } from './cohorts/cohortCalculation'
export * as groups from './persons/groups'
export * as earlyAccessFeatures from './flags/earlyAccessFeatures'
export * as queries from './queries'
export * as personalApiKeys from './access/personalApiKeys'
export * as organizationMembers from './access/organizationMembers'
export * as organizationInvites from './access/organizationInvites'
export { assertScope, type Caller } from './access/access'
export {
  KeyGuessCounter,
  keyGuessGuard,
  throttledFor,
  type GuessedKey,
  type GuessOutcome,
  type GuessVerdict,
  type KeyGuessGuard,
  type KeyGuessCounterOptions,
} from './access/keyGuessGuard'
export * as insights from './insights/insights'
export * as dashboards from './insights/dashboards'
export * as actions from './actions/actions'
