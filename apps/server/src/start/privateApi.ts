import { createRestHandler, createTrpcHandler, type ApiGuards } from '@burrow/api'
import type { Config } from '@burrow/config'
import { CohortCalculator, type CoreDeps } from '@burrow/core'
import type { FrontHandlers } from './front'
import type { Teardown } from './teardown'

/** The private API, REST and tRPC, and the cohort calculations that its changes start. */
export function startPrivateApi(config: Config, deps: CoreDeps, guards: ApiGuards, teardown: Teardown): FrontHandlers {
  const calculator = new CohortCalculator(deps, {
    recalculateAfterS: config.COHORT_RECALCULATE_AFTER_S,
    checkIntervalMs: config.COHORT_CHECK_INTERVAL_MS,
  })
  deps.cohortCalculations = calculator
  calculator.start()
  teardown.onStop(() => calculator.stop())
  return { rest: createRestHandler(deps, guards), trpc: createTrpcHandler(deps, guards) }
}
