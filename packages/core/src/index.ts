export * as accounts from './accounts'
export * as consoleAuth from './consoleAuth'
export { signInGuard, type SignInGuard } from './consoleAuth'
export * as cohorts from './cohorts'
export * as eventDefinitions from './eventDefinitions'
export * as events from './events'
export * as featureFlags from './featureFlags'
export * as organizations from './organizations'
export * as pluginConfigs from './pluginConfigs'
export * as plugins from './plugins'
export * as persons from './persons'
export * as ingestionWarnings from './ingestionWarnings'
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
export { EventDefinitionTracker } from './eventDefinitionTracker'
export { cookielessDays, cookielessSalt, cookielessState } from './cookielessSalts'
export { elementsFromChain } from './elementsChain'
export { parsePropertyFilters } from './propertyFilters'
export { SERVICE_VERSION } from './version'
export { asTenant, isQueryTimeout } from '@burrow/clickhouse'
export { isDependencyUnavailable } from './dependencyUnavailable'
export * as keys from './keys'
export { FlagDefinitionsResolver, type ProjectFlags } from './flagDefinitions'
export { decodePathSegment, isUuid } from './ids'
export { mapJsonText } from './jsonText'
export { pathOfNul, replaceNul, withoutNul } from './nulCharacters'
export { CohortCalculator, calculateCohort } from './cohortCalculation'
export * as groups from './groups'
export * as earlyAccessFeatures from './earlyAccessFeatures'
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
export * as insights from './insights'
export * as dashboards from './dashboards'
