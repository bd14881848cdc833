import { randomUUID } from 'node:crypto'
import { accounts } from '@burrow/core'
import type { Pool } from '@burrow/postgres'

export interface TestAccount {
  personalApiKey: string
  userId: number
  organizationId: string
  projectId: number
  projectToken: string
}

/** A fresh organization, user, key and project, so each test works on data of its own. */
export async function createTestAccount(sql: Pool): Promise<TestAccount> {
  const account = await accounts.createAccount(sql, {
    email: `test-${randomUUID()}@example.com`,
    organizationName: `Test organization ${randomUUID().slice(0, 8)}`,
  })
  return {
    personalApiKey: account.personalApiKey,
    userId: account.user.id,
    organizationId: account.organizationId,
    projectId: account.project.id,
    projectToken: account.project.api_token,
  }
}
