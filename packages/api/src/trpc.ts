import { ApiProblem, problems } from '@burrow/contracts'
import { pathOfNul, projects, type CoreDeps } from '@burrow/core'
import type { UserRow } from '@burrow/postgres'
import { initTRPC } from '@trpc/server'
import { z } from 'zod'
import { trpcErrorFromProblem } from './errors'

export interface ApiContext {
  deps: CoreDeps
  /** The user of the personal API key, if a valid one came with the request. */
  user: UserRow | null
  /** Whether the request carried a personal API key at all (valid or not). */
  keyPresented: boolean
}

const t = initTRPC.context<ApiContext>().create({
  errorFormatter({ shape, error }) {
    // tRPC clients get PostHog's error body too, under data.problem.
    const problem = error.cause instanceof ApiProblem ? error.cause.body : undefined
    return { ...shape, data: { ...shape.data, problem } }
  },
})

export const router = t.router
export const createCallerFactory = t.createCallerFactory

/**
 * Turns the ApiProblem a core verb throws into a TRPCError of the matching code, keeping the
 * problem as the cause: the one place where domain failures become transport errors.
 */
const problemsToTrpcErrors = t.middleware(async ({ next }) => {
  const result = await next()
  if (!result.ok && result.error.cause instanceof ApiProblem) throw trpcErrorFromProblem(result.error.cause)
  return result
})

export const publicProcedure = t.procedure.use(problemsToTrpcErrors)

/**
 * Refuses U+0000 anywhere in the input, as Django REST Framework refuses it in text ("Null
 * characters are not allowed."): PostgreSQL could not store it. `attr` names the field as the
 * resource does, so an update's `data` wrapper is left out.
 */
const refuseNulCharacters = t.middleware(async ({ getRawInput, next }) => {
  const path = pathOfNul(await getRawInput())
  if (path) {
    const field = path[0] === 'data' ? path.slice(1) : path
    throw problems.validation(field.length > 0 ? field.join('__') : null, 'Null characters are not allowed.', 'null_characters_not_allowed')
  }
  return next()
})

/** A procedure for a caller with a valid personal API key. */
export const authedProcedure = publicProcedure
  .use(({ ctx, next }) => {
    if (!ctx.user) throw ctx.keyPresented ? problems.authenticationFailed() : problems.notAuthenticated()
    return next({ ctx: { ...ctx, user: ctx.user } })
  })
  .use(refuseNulCharacters)

/** `project_id` as the URL gives it: an integer or `@current`. */
export const projectIdInput = z.object({ project_id: z.union([z.string(), z.number()]).transform(String) })

/** A procedure scoped to one project the caller may see, loaded from `project_id`. */
export const projectProcedure = authedProcedure.input(projectIdInput).use(async ({ ctx, input, next }) => {
  const project = await projects.findAccessibleProject(ctx.deps, ctx.user, input.project_id)
  return next({ ctx: { ...ctx, project } })
})
