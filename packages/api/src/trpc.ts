import { ApiProblem, problems, type Scope } from '@burrow/contracts'
import { asTenant, assertScope, organizations, pathOfNul, projects, type Caller, type CoreDeps, type KeyGuessGuard } from '@burrow/core'
import type { SignInGuard } from '@burrow/core'
import { initTRPC } from '@trpc/server'
import { z, ZodError } from 'zod'
import { problemFromError, trpcErrorFromProblem, unavailableProblem } from './errors'
import type { ApiThrottle, ThrottleClass } from './throttle'

export interface ApiContext {
  deps: CoreDeps
  /** The user of the personal API key, with what the key grants, if a valid one came with the request. */
  user: Caller | null
  /** Whether the request carried a personal API key at all (valid or not). */
  keyPresented: boolean
  /** The rate limits and the guard against key guessing; absent, nothing is limited. */
  guards?: ApiGuards | undefined
  /** Why the request is refused before its key is looked at again (an address that keeps guessing keys). */
  refusal?: ApiProblem | undefined
  /**
   * What each procedure needs of a key and counts against, as the route table declares it.
   * Handed in with the context, so that the procedures' module needs no route table.
   */
  policy: ProcedurePolicy
}

export interface ProcedurePolicy {
  scopeOf(path: string): Scope | undefined
  throttleOf(path: string): ThrottleClass
}

export interface ApiGuards {
  throttle?: ApiThrottle | undefined
  keyGuesses?: KeyGuessGuard | undefined
  /** The bound on password guessing at sign-in. */
  signIn?: SignInGuard | undefined
  /** Origins besides the service's own whose pages may use the console's session (CORS_ALLOWED_ORIGINS). */
  sessionOrigins?: readonly string[] | undefined
}

const t = initTRPC.context<ApiContext>().create({
  // Never development mode: its answers carry stacks with the server's file paths.
  isDev: false,
  errorFormatter({ shape, error }) {
    // tRPC clients get PostHog's error body too, under data.problem. What is not a known problem
    // (a failing query, a driver's message with its SQL) is answered as the REST side answers it.
    const { stack: _stack, ...data } = shape.data
    const internal = error.code === 'INTERNAL_SERVER_ERROR' && !(error.cause instanceof ApiProblem)
    const problem =
      internal || error.cause instanceof ApiProblem || error.cause instanceof ZodError ? problemFromError(error).body : undefined
    return { ...shape, message: internal ? problems.serverError().message : shape.message, data: { ...data, problem } }
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
  if (result.ok) return result
  if (result.error.cause instanceof ApiProblem) throw trpcErrorFromProblem(result.error.cause)
  const unavailable = unavailableProblem(result.error.cause)
  if (unavailable) throw trpcErrorFromProblem(unavailable)
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

/**
 * A procedure for a caller with a valid personal API key that carries the scope the procedure
 * needs (the one its routes declare), or with the console's session. A procedure no route
 * declares a scope for is refused to keys, as PostHog refuses a view without one.
 */
export const authedProcedure = publicProcedure
  .use(async ({ ctx, path, next }) => {
    if (ctx.refusal) throw ctx.refusal
    if (!ctx.user) throw ctx.keyPresented ? problems.authenticationFailed() : problems.notAuthenticated()
    // A key is held to its scopes; a signed-in user of the console acts with their own rights.
    if (ctx.user.key) {
      const scope = ctx.policy.scopeOf(path)
      if (!scope) throw problems.permissionDenied('This action does not support personal API key access')
      assertScope(ctx.user, scope)
    }
    // Counted once the key is known to be valid and allowed: a refused call costs its key nothing.
    const key = ctx.user.key
    if (key && ctx.guards?.throttle) await ctx.guards.throttle(key.id, ctx.policy.throttleOf(path))
    return next({ ctx: { ...ctx, user: ctx.user } })
  })
  .use(refuseNulCharacters)

/** `project_id` as the URL gives it: an integer or `@current`. */
export const projectIdInput = z.object({ project_id: z.union([z.string(), z.number()]).transform(String) })

/** A procedure scoped to one project the caller may see, loaded from `project_id`. */
export const projectProcedure = authedProcedure.input(projectIdInput).use(async ({ ctx, input, next }) => {
  const project = await projects.findAccessibleProject(ctx.deps, ctx.user, input.project_id)
  // The procedure's reads wait their turn at ClickHouse as this organization's and project's.
  return asTenant({ organization: project.row.organization_id, project: project.row.id }, () => next({ ctx: { ...ctx, project } }))
})

/** `organization_id` as the URL gives it: a uuid or `@current`. */
export const organizationIdInput = z.object({ organization_id: z.union([z.string(), z.number()]).transform(String) })

/** A procedure scoped to one organization the caller belongs to (and their key reaches), with their level in it. */
export const organizationProcedure = authedProcedure.input(organizationIdInput).use(async ({ ctx, input, next }) => {
  const organization = await organizations.findAccessibleOrganization(ctx.deps, ctx.user, input.organization_id)
  return next({ ctx: { ...ctx, organization } })
})
