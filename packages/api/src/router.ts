import type { AnyTRPCProcedure } from '@trpc/server'
import { organizationInvitesRouter, organizationMembersRouter, personalApiKeysRouter } from './routers/access'
import { actionsRouter } from './routers/actions'
import { cohortsRouter } from './routers/cohorts'
import { earlyAccessFeaturesRouter } from './routers/earlyAccessFeatures'
import { eventDefinitionsRouter } from './routers/eventDefinitions'
import { eventsRouter } from './routers/events'
import { featureFlagsRouter } from './routers/featureFlags'
import { ingestionWarningsRouter } from './routers/ingestionWarnings'
import { dashboardsRouter, insightsRouter } from './routers/insights'
import { groupsRouter, groupTypesRouter } from './routers/groups'
import { pluginConfigsRouter, pluginsRouter } from './routers/plugins'
import { personsRouter } from './routers/persons'
import { projectsRouter } from './routers/projects'
import { queryRouter } from './routers/query'
import { usersRouter } from './routers/users'
import { createCallerFactory, router } from './trpc'

export const appRouter = router({
  projects: projectsRouter,
  cohorts: cohortsRouter,
  eventDefinitions: eventDefinitionsRouter,
  events: eventsRouter,
  persons: personsRouter,
  featureFlags: featureFlagsRouter,
  plugins: pluginsRouter,
  pluginConfigs: pluginConfigsRouter,
  users: usersRouter,
  ingestionWarnings: ingestionWarningsRouter,
  groups: groupsRouter,
  groupTypes: groupTypesRouter,
  earlyAccessFeatures: earlyAccessFeaturesRouter,
  query: queryRouter,
  insights: insightsRouter,
  dashboards: dashboardsRouter,
  actions: actionsRouter,
  personalApiKeys: personalApiKeysRouter,
  organizationMembers: organizationMembersRouter,
  organizationInvites: organizationInvitesRouter,
})

/** The router's type: what a frontend's `createTRPCClient<AppRouter>` needs. */
export type AppRouter = typeof appRouter

export const createCaller = createCallerFactory(appRouter)

type PathsOf<TRecord, TPrefix extends string> = {
  [K in keyof TRecord & string]: TRecord[K] extends AnyTRPCProcedure ? `${TPrefix}${K}` : PathsOf<TRecord[K], `${TPrefix}${K}.`>
}[keyof TRecord & string]

/** The dotted path of every procedure (`projects.list`), so that naming a missing one does not compile. */
export type ProcedurePath = PathsOf<AppRouter['_def']['record'], ''>
