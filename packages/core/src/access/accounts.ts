import { randomUUID, timingSafeEqual } from 'node:crypto'
import { MEMBERSHIP_LEVELS, problems } from '@burrow/contracts'
import { organizations, personalApiKeys, projects, users, type Pool, type ProjectRow, type Sql, type UserRow } from '@burrow/postgres'
import type { Caller } from './access'
import { isUuid } from '../ids'
import { generatePersonalApiKey, generateProjectToken, maskPersonalApiKey, personalApiKeySecureValue } from './keys'

export const MEMBERSHIP_LEVEL = MEMBERSHIP_LEVELS

export interface NewAccount {
  user: UserRow
  organizationId: string
  project: ProjectRow
  /** The key in plain text: shown once to whoever created the account, stored only hashed. */
  personalApiKey: string
}

/**
 * A user who owns a new organization with a first project, and a personal API key for them.
 * One transaction: an account is created whole or not at all.
 */
export async function createAccount(
  sql: Pool,
  input: { email: string; organizationName: string; personalApiKey?: string | undefined; firstName?: string },
): Promise<NewAccount> {
  return sql.begin((tx) => createAccountIn(tx, input))
}

async function createAccountIn(
  tx: Sql,
  input: { email: string; organizationName: string; personalApiKey?: string | undefined; firstName?: string },
): Promise<NewAccount> {
  if (await users.findUserByEmail(tx, input.email)) {
    throw problems.validation('email', 'There is already an account with this email address.', 'unique')
  }
  const key = input.personalApiKey ?? generatePersonalApiKey()
  const organization = await organizations.insertOrganization(tx, { id: randomUUID(), name: input.organizationName })
  const user = await insertMember(tx, input, organization.id, MEMBERSHIP_LEVEL.owner)
  const project = await projects.insertProject(tx, {
    uuid: randomUUID(),
    organizationId: organization.id,
    apiToken: generateProjectToken(),
    name: 'Default project',
    write: {},
  })
  return settleNewUser(tx, user, organization.id, project, key)
}

/** The new user's current project and first personal API key (stored hashed), and the account as answered once. */
async function settleNewUser(tx: Sql, user: UserRow, organizationId: string, project: ProjectRow, key: string): Promise<NewAccount> {
  await users.setCurrentProject(tx, user.id, project.id)
  await personalApiKeys.insertPersonalApiKey(tx, {
    id: randomUUID(),
    userId: user.id,
    label: 'Created with the account',
    secureValue: personalApiKeySecureValue(key),
    maskValue: maskPersonalApiKey(key),
  })
  return { user: { ...user, current_project_id: project.id }, organizationId, project, personalApiKey: key }
}

const BOOTSTRAP_LOCK_KEY = 7_210_934_412

/** On an empty database, the first account; undefined when accounts already exist. */
export async function bootstrapFirstAccount(
  sql: Pool,
  input: { email: string; organizationName: string; personalApiKey?: string | undefined },
): Promise<NewAccount | undefined> {
  return sql.begin(async (tx) => {
    // Several servers may start together on a new database: the lock lets one create it.
    await tx`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY})`
    if ((await organizations.countOrganizations(tx)) > 0) return undefined
    return createAccountIn(tx, input)
  })
}

/**
 * The active user owning this personal API key, with what the key grants; undefined for an
 * unknown key. Looked up by the key's SHA-256, so the time taken says nothing of how close a
 * guess came; read from PostgreSQL at each request, so a deleted or rolled key stops working on
 * every instance at once.
 */
export async function findCallerByPersonalApiKey(sql: Sql, key: string): Promise<Caller | undefined> {
  const secureValue = personalApiKeySecureValue(key)
  const found = await personalApiKeys.findUserByKeySecureValue(sql, secureValue)
  if (!found || !sameText(found.key.secure_value, secureValue)) return undefined
  return { ...found.user, key: found.key }
}

function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)]
  return x.length === y.length && timingSafeEqual(x, y)
}

/**
 * A user who joins an existing organization at a level, with a personal API key; the
 * organization and its first project become their current ones. For the CLI, where there is no
 * sign-up page for an invite.
 */
export async function createMember(
  sql: Pool,
  input: { email: string; organizationId: string; level: number; firstName?: string },
): Promise<NewAccount> {
  return sql.begin(async (tx) => {
    if (await users.findUserByEmail(tx, input.email)) {
      throw problems.validation('email', 'There is already an account with this email address.', 'unique')
    }
    if (!isUuid(input.organizationId) || !(await organizations.findOrganization(tx, input.organizationId))) {
      throw problems.notFound('Organization not found.')
    }
    const key = generatePersonalApiKey()
    const user = await insertMember(tx, input, input.organizationId, input.level)
    const [project] = await projects.projectsOfOrganization(tx, input.organizationId)
    if (!project) throw problems.notFound('Project not found.')
    return settleNewUser(tx, user, input.organizationId, project, key)
  })
}

/** A new user, a member of the organization at `level`; the first name defaults to the email's local part. */
async function insertMember(tx: Sql, input: { email: string; firstName?: string | undefined }, organizationId: string, level: number) {
  const user = await users.insertUser(tx, {
    uuid: randomUUID(),
    distinctId: randomUUID(),
    email: input.email,
    firstName: input.firstName ?? input.email.split('@')[0] ?? '',
    organizationId,
  })
  await organizations.addMembership(tx, { organizationId, userId: user.id, level })
  return user
}
