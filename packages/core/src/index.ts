export * as accounts from './accounts'
export * as consoleAuth from './consoleAuth'
export { signInGuard, type SignInGuard } from './consoleAuth'
export * as cohorts from './cohorts/cohorts'
export * as eventDefinitions from './events/eventDefinitions'
export * as events from './events/events'
export * as featureFlags from './flags/featureFlags'
export * as organizations from './organizations'
export * as persons from './persons/persons'
export * as ingestionWarnings from './events/ingestionWarnings'
export * as projects from './projects'
export { describeMe } from './me'
export type { CoreDeps } from './deps'
export {
  ProjectTokenResolver,
  type IngestionProject,
  type ProjectSource,
  type PersonalKeyProject,
  invalidateProjectToken,
  findIngestionProject,
} from './projectTokens'
export { EventDefinitionTracker } from './events/eventDefinitionTracker'
export { cookielessDays, cookielessSalt, cookielessState } from './cookielessSalts'
export { elementsFromChain } from './events/elementsChain'
export { parsePropertyFilters } from './events/propertyFilters'
export { SERVICE_VERSION } from './version'
export { asTenant, isQueryTimeout } from '@burrow/clickhouse'
export { isDependencyUnavailable } from './dependencyUnavailable'
export * as keys from './keys'
export { FlagDefinitionsResolver, type ProjectFlags } from './flags/flagDefinitions'
export { decodePathSegment, isUuid, serialIdOrNotFound } from './ids'
export { mapJsonText } from './jsonText'
export { pathOfNul, replaceNul, withoutNul } from './nulCharacters'
export { CohortCalculator, calculateCohort } from './cohorts/cohortCalculation'
export * as groups from './persons/groups'
export * as earlyAccessFeatures from './flags/earlyAccessFeatures'
export * as queries from './queries'
export * as personalApiKeys from './personalApiKeys'
export * as organizationMembers from './organizationMembers'
export * as organizationInvites from './organizationInvites'
export { assertScope, type Caller } from './access'
export {
  KeyGuessCounter,
  keyGuessGuard,
  throttledFor,
  type GuessedKey,
  type GuessOutcome,
  type GuessVerdict,
  type KeyGuessGuard,
  type KeyGuessCounterOptions,
} from './keyGuessGuard'
export * as insights from './insights/insights'
export * as dashboards from './insights/dashboards'
