import { AsyncLocalStorage } from 'node:async_hooks'

/** Whose work a read is, for sharing the reader connections fairly: an organization and one of its projects. */
export interface Tenant {
  organization: string
  project: number
}

/** The service's own reads (ingestion, probes, cohort calculations): a tenant of their own, with the same share as any. */
export const SERVICE_TENANT: Tenant = { organization: '', project: 0 }

const tenants = new AsyncLocalStorage<Tenant>()

/**
 * Runs `work` as the tenant's: every ClickHouse read it makes, however deep in the verbs, waits
 * its turn in that tenant's queue. Set once where a request's project is known (the API's
 * project procedures, a query's computation), so that no verb has to pass it along.
 */
export function asTenant<T>(tenant: Tenant, work: () => T): T {
  return tenants.run(tenant, work)
}

/** The tenant the current work runs as; the service's own outside any. */
export function currentTenant(): Tenant {
  return tenants.getStore() ?? SERVICE_TENANT
}
