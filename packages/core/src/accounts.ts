import { randomUUID } from 'node:crypto'
import { problems } from '@burrow/contracts'
import { organizations, personalApiKeys, projects, users, type Pool, type ProjectRow, type Sql, type UserRow } from '@burrow/postgres'
import { generatePersonalApiKey, generateProjectToken, maskPersonalApiKey, personalApiKeySecureValue } from './keys'

export const MEMBERSHIP_LEVEL = { member: 1, admin: 8, owner: 15 } as const

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
  const user = await users.insertUser(tx, {
    uuid: randomUUID(),
    distinctId: randomUUID(),
    email: input.email,
    firstName: input.firstName ?? input.email.split('@')[0] ?? '',
    organizationId: organization.id,
  })
  await organizations.addMembership(tx, { organizationId: organization.id, userId: user.id, level: MEMBERSHIP_LEVEL.owner })
  const project = await projects.insertProject(tx, {
    uuid: randomUUID(),
    organizationId: organization.id,
    apiToken: generateProjectToken(),
    name: 'Default project',
    write: {},
  })
  await users.setCurrentProject(tx, user.id, project.id)
  await personalApiKeys.insertPersonalApiKey(tx, {
    id: randomUUID(),
    userId: user.id,
    label: 'Created with the account',
    secureValue: personalApiKeySecureValue(key),
    maskValue: maskPersonalApiKey(key),
  })
  return { user: { ...user, current_project_id: project.id }, organizationId: organization.id, project, personalApiKey: key }
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

/** The active user owning this personal API key, or undefined. */
export function findUserByPersonalApiKey(sql: Sql, key: string): Promise<UserRow | undefined> {
  return personalApiKeys.findUserByKeySecureValue(sql, personalApiKeySecureValue(key))
}
