import type { Scope } from '@burrow/contracts'
import { restRoutes } from './routes'
import type { ThrottleClass } from './throttle'
import type { ProcedurePolicy } from './trpc'

/**
 * What each procedure needs and counts against, as the route table declares it. A procedure
 * served at several paths declares the same at each (a test checks that they agree), so tRPC
 * callers are held to what REST callers are.
 */
const scopes = new Map<string, Scope>(restRoutes.map((route) => [route.procedure, route.scope]))
const throttles = new Map<string, ThrottleClass>(restRoutes.map((route) => [route.procedure, route.throttle ?? 'api']))

export const procedurePolicy: ProcedurePolicy = {
  scopeOf: (path) => scopes.get(path),
  throttleOf: (path) => throttles.get(path) ?? 'api',
}
