import { eventsRouter } from './routers/events'
import { projectsRouter } from './routers/projects'
import { createCallerFactory, router } from './trpc'

export const appRouter = router({
  projects: projectsRouter,
  events: eventsRouter,
})

/** The router's type: what a frontend's `createTRPCClient<AppRouter>` needs. */
export type AppRouter = typeof appRouter

export const createCaller = createCallerFactory(appRouter)
