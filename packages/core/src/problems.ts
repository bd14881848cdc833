/**
 * The catalogue lives with the wire contracts, where capture can import it without core's
 * storage clients; core verbs throw from it under the names they always used.
 */
export { ApiProblem, problems } from '@burrow/contracts'
