import { problems } from '@burrow/contracts'
import { organizations, type OrganizationRow } from '@burrow/postgres'
import type { CoreDeps } from '../deps'
import { isUuid } from '../ids'
import { assertOrganizationInReach, type Caller } from './access'

/** The organization named by a URL segment (a uuid or `@current`) if the user belongs to it; else 404. */
export async function findAccessibleOrganization(
  deps: CoreDeps,
  user: Caller,
  idParam: string,
): Promise<OrganizationRow & { level: number }> {
  const id = idParam === '@current' ? user.current_organization_id : isUuid(idParam) ? idParam : null
  const row = id === null ? undefined : await organizations.findOrganization(deps.sql, id)
  const level = row && (await organizations.membershipLevel(deps.sql, row.id, user.id))
  if (!row || level === undefined) throw problems.notFound('Organization not found.')
  assertOrganizationInReach(user, row.id)
  return { ...row, level }
}
