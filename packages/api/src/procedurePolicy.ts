import type { Scope } from '@burrow/contracts'
import { restRoutes, type ThrottleClass } from './routes'

/**
 * What each procedure needs and counts against, as the route table declares it. A procedure
 * served at several paths declares the same at each (a test checks that they agree), so tRPC
 * callers are held to what REST callers are.
 */
const scopes = new Map<string, Scope>(restRoutes.map((route) => [route.procedure, route.scope]))
const throttles = new Map<string, ThrottleClass>(restRoutes.map((route) => [route.procedure, route.throttle ?? 'api']))

export function scopeOfProcedure(path: string): Scope | undefined {
  return scopes.get(path)
}

export function throttleOfProcedure(path: string): ThrottleClass {
  return throttles.get(path) ?? 'api'
}
