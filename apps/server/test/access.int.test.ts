import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import type { AppRouter } from '@burrow/api'
import type { TestAccount } from '@burrow/testing'
import { createTRPCClient, httpBatchLink } from '@trpc/client'
import { describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'
import { SERVER_DIR } from './serviceProcess'

let service: TestService
useTestService((s) => {
  service = s
})

const json = async (res: Response) => (await res.json()) as Record<string, any>

/** Calls the API with a key given as is. */
const withKey = (key: string, path: string, init: RequestInit = {}) =>
  fetch(`${service.baseUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
  })

async function createKey(owner: TestAccount, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await service.api(owner, '/api/personal_api_keys/', { method: 'POST', body: JSON.stringify(body) })
  expect(res.status).toBe(201)
  return json(res)
}

const emailOf = async (owner: TestAccount) => (await json(await service.api(owner, '/api/users/@me/'))).email as string

describe('personal API keys', () => {
  it('shows a new key once, as PostHog does, and only its mask afterwards', async () => {
    const owner = await service.account()
    const created = await createKey(owner, { label: 'CI', scopes: ['feature_flag:read'] })
    expect(created).toMatchObject({
      label: 'CI',
      value: expect.stringMatching(/^phx_/),
      scopes: ['feature_flag:read'],
      scoped_teams: [],
      scoped_organizations: [],
      user_id: owner.userId,
      last_used_at: null,
    })
    expect(created.mask_value).toBe(`phx_...${created.value.slice(-4)}`)
    const listed = (await json(await service.api(owner, '/api/personal_api_keys/'))) as unknown as Array<Record<string, any>>
    expect(listed.map((k) => k.label)).toEqual(['CI', 'Created with the account'])
    expect(listed.every((k) => k.value === null)).toBe(true)
    // The first key, made with the account, has every scope.
    expect(listed[1]!.scopes).toEqual(['*'])

    const current = await json(await withKey(created.value, '/api/projects/@current/feature_flags/'))
    expect(current.results).toEqual([])
    const self = await withKey(owner.personalApiKey, '/api/personal_api_keys/@current/')
    expect((await json(self)).id).toBe(listed[1]!.id)
  })

  it('refuses unknown scopes, projects and organizations the user is not in, and an eleventh key', async () => {
    const owner = await service.account()
    const other = await service.account()
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [
        { label: 'x', scopes: ['notebook:read'] },
        { attr: 'scopes', detail: 'Invalid scope: notebook:read' },
      ],
      [
        { label: 'x', scopes: ['cohort:delete'] },
        { attr: 'scopes', detail: 'Invalid scope: cohort:delete' },
      ],
      [
        { label: 'x', scopes: ['*'], scoped_teams: [other.projectId] },
        { attr: 'scoped_teams', detail: 'You must be a member of all teams that you are scoping the key to.' },
      ],
      [
        { label: 'x', scopes: ['*'], scoped_organizations: [other.organizationId] },
        { attr: 'scoped_organizations', detail: 'You must be a member of all organizations that you are scoping the key to.' },
      ],
      [
        { label: 'x', scopes: ['*'], scoped_organizations: ['not-a-uuid'] },
        { attr: 'scoped_organizations', detail: 'Invalid organization UUID' },
      ],
      [{ scopes: ['*'] }, { attr: 'label', code: 'required' }],
    ]
    for (const [body, problem] of cases) {
      const res = await service.api(owner, '/api/personal_api_keys/', { method: 'POST', body: JSON.stringify(body) })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(await json(res)).toMatchObject({ type: 'validation_error', ...problem })
    }
    for (let i = 0; i < 9; i++) await createKey(owner, { label: `k${i}`, scopes: ['*'] })
    const eleventh = await service.api(owner, '/api/personal_api_keys/', {
      method: 'POST',
      body: JSON.stringify({ label: 'one more', scopes: ['*'] }),
    })
    expect(eleventh.status).toBe(400)
    expect(await json(eleventh)).toMatchObject({
      detail: 'You can only have 10 personal API keys. Remove an existing key before creating a new one.',
    })
  })

  it('never lets a key make or widen a key beyond its own scopes and projects', async () => {
    const owner = await service.account()
    const manager = await createKey(owner, { label: 'manager', scopes: ['personal_api_key:write', 'cohort:read'] })
    const wider = await withKey(manager.value, '/api/personal_api_keys/', {
      method: 'POST',
      body: JSON.stringify({ label: 'escalate', scopes: ['*'] }),
    })
    expect(wider.status).toBe(403)
    expect(await json(wider)).toMatchObject({ code: 'permission_denied', detail: "A key cannot grant a scope it does not have: '*'." })
    const self = await withKey(manager.value, `/api/personal_api_keys/${manager.id}/`, {
      method: 'PATCH',
      body: JSON.stringify({ scopes: ['cohort:write'] }),
    })
    expect(self.status).toBe(403)
    const narrower = await withKey(manager.value, '/api/personal_api_keys/', {
      method: 'POST',
      body: JSON.stringify({ label: 'reader', scopes: ['cohort:read'] }),
    })
    expect(narrower.status).toBe(201)

    const limited = await createKey(owner, { label: 'one project', scopes: ['*'], scoped_teams: [owner.projectId] })
    const unlimited = await withKey(limited.value, '/api/personal_api_keys/', {
      method: 'POST',
      body: JSON.stringify({ label: 'everywhere', scopes: ['*'] }),
    })
    expect(unlimited.status).toBe(403)
  })

  it('rolls a key: the new value works at once and the old one is refused', async () => {
    const owner = await service.account()
    const key = await createKey(owner, { label: 'to roll', scopes: ['*'] })
    const rolled = await json(await service.api(owner, `/api/personal_api_keys/${key.id}/roll/`, { method: 'POST' }))
    expect(rolled).toMatchObject({ id: key.id, value: expect.stringMatching(/^phx_/), last_rolled_at: expect.any(String) })
    expect(rolled.value).not.toBe(key.value)
    expect((await withKey(key.value, '/api/users/@me/')).status).toBe(401)
    expect((await withKey(rolled.value, '/api/users/@me/')).status).toBe(200)
  })

  it('deletes a key, which stops working at once; another user cannot see or delete it', async () => {
    const owner = await service.account()
    const stranger = await service.account()
    const key = await createKey(owner, { label: 'to delete', scopes: ['*'] })
    expect((await service.api(stranger, `/api/personal_api_keys/${key.id}/`)).status).toBe(404)
    expect((await service.api(stranger, `/api/personal_api_keys/${key.id}/`, { method: 'DELETE' })).status).toBe(404)
    expect((await withKey(key.value, '/api/users/@me/')).status).toBe(200)
    expect((await service.api(owner, `/api/personal_api_keys/${key.id}/`, { method: 'DELETE' })).status).toBe(204)
    const refused = await withKey(key.value, '/api/users/@me/')
    expect(refused.status).toBe(401)
    expect(await json(refused)).toMatchObject({ code: 'authentication_failed' })
  })

  it('updates a key: label, scopes and its projects, which then bound what it reaches', async () => {
    const owner = await service.account()
    const key = await createKey(owner, { label: 'before', scopes: ['cohort:read'] })
    const updated = await json(
      await service.api(owner, `/api/personal_api_keys/${key.id}/`, {
        method: 'PATCH',
        body: JSON.stringify({ label: 'after', scopes: ['project:read'], scoped_teams: [owner.projectId] }),
      }),
    )
    expect(updated).toMatchObject({ label: 'after', scopes: ['project:read'], scoped_teams: [owner.projectId], value: null })
    const projects = await json(await withKey(key.value, '/api/projects/'))
    expect(projects.results.map((p: { id: number }) => p.id)).toEqual([owner.projectId])
    expect((await withKey(key.value, `/api/projects/${owner.projectId}/cohorts/`)).status).toBe(403)
  })

  it('holds tRPC callers to the same scopes', async () => {
    const owner = await service.account()
    const key = await createKey(owner, { label: 'flags only', scopes: ['feature_flag:read'] })
    const client = createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: `${service.baseUrl}/trpc`, headers: { authorization: `Bearer ${key.value}` } })],
    })
    await expect(client.cohorts.list.query({ project_id: owner.projectId })).rejects.toMatchObject({
      data: { httpStatus: 403, problem: { code: 'permission_denied', detail: "API key missing required scope 'cohort:read'" } },
    })
    const flags = await client.featureFlags.list.query({ project_id: owner.projectId })
    expect(flags.results).toEqual([])
  })

  it('checks the scope of a personal key sent to capture and flags with project_id', async () => {
    const owner = await service.account()
    const readOnly = await createKey(owner, { label: 'read only', scopes: ['feature_flag:read'] })
    const captured = await service.post('/capture/', {
      api_key: readOnly.value,
      project_id: owner.projectId,
      event: 'e',
      distinct_id: 'd',
    })
    expect(captured.status).toBe(403)
    expect(await json(captured)).toMatchObject({ code: 'permission_denied', detail: "API key missing required scope 'project:write'" })
    const flags = await service.post('/flags/?v=2', { api_key: readOnly.value, project_id: owner.projectId, distinct_id: 'd' })
    expect(flags.status).toBe(200)
    const writer = await createKey(owner, { label: 'writer', scopes: ['project:write'] })
    const accepted = await service.post('/capture/', { api_key: writer.value, project_id: owner.projectId, event: 'e', distinct_id: 'd' })
    expect(accepted.status).toBe(200)
    const noFlags = await service.post('/flags/?v=2', { api_key: writer.value, project_id: owner.projectId, distinct_id: 'd' })
    expect(noFlags.status).toBe(403)
  })
})

describe('organization members and invites', () => {
  /** A second user who joins the owner's organization through an invite at `level`. */
  async function joined(owner: TestAccount, level: number): Promise<TestAccount> {
    const joiner = await service.account()
    const invite = await service.api(owner, '/api/organizations/@current/invites/', {
      method: 'POST',
      body: JSON.stringify({ target_email: await emailOf(joiner), level }),
    })
    expect(invite.status).toBe(201)
    const { id } = await json(invite)
    const accepted = await service.api(joiner, `/api/signup/${id}/`, { method: 'POST' })
    expect(accepted.status).toBe(200)
    expect(await json(accepted)).toEqual({ organization_id: owner.organizationId, level })
    return { ...joiner, organizationId: owner.organizationId, projectId: owner.projectId, projectToken: owner.projectToken }
  }

  it('lists the members with their levels; an invitee joins as the level invited and works in the projects', async () => {
    const owner = await service.account()
    const member = await joined(owner, 1)
    const members = (await json(await service.api(owner, '/api/organizations/@current/members/'))) as unknown as Array<Record<string, any>>
    expect(members.map((m) => [m.user.id, m.level])).toEqual([
      [member.userId, 1],
      [owner.userId, 15],
    ])
    expect(members[0]).toMatchObject({ id: expect.any(String), user: { email: await emailOf(member) }, joined_at: expect.any(String) })
    // The organization became the member's current one.
    const cohorts = await service.api(member, `/api/projects/@current/cohorts/`)
    expect(cohorts.status).toBe(200)
    expect((await json(await service.api(member, '/api/users/@me/'))).organization.id).toBe(owner.organizationId)
  })

  it('lets members neither manage members nor delete projects, and admins both', async () => {
    const owner = await service.account()
    const member = await joined(owner, 1)
    const other = await joined(owner, 1)
    const promote = await service.api(member, `/api/organizations/@current/members/${other.userId}/`, {
      method: 'PATCH',
      body: JSON.stringify({ level: 8 }),
    })
    expect(promote.status).toBe(403)
    expect(await json(promote)).toMatchObject({
      detail: 'You can only change access level of others to lower or equal to your current one.',
    })
    const remove = await service.api(member, `/api/organizations/@current/members/${other.userId}/`, { method: 'DELETE' })
    expect(remove.status).toBe(403)
    expect(await json(remove)).toMatchObject({ detail: 'You are not permitted to delete other organization members.' })
    const dropProject = await service.api(member, `/api/projects/${owner.projectId}/`, { method: 'DELETE' })
    expect(dropProject.status).toBe(403)
    expect(await json(dropProject)).toMatchObject({ detail: 'Your organization access level is insufficient.' })

    const promoted = await service.api(owner, `/api/organizations/@current/members/${member.userId}/`, {
      method: 'PATCH',
      body: JSON.stringify({ level: 8 }),
    })
    expect(promoted.status).toBe(200)
    expect(await json(promoted)).toMatchObject({ level: 8, user: { id: member.userId } })
    expect((await service.api(member, `/api/organizations/@current/members/${other.userId}/`, { method: 'DELETE' })).status).toBe(204)
    expect((await service.api(other, `/api/projects/${owner.projectId}/cohorts/`)).status).toBe(404)
    // An admin cannot touch the owner, nor make anyone owner.
    const onOwner = await service.api(member, `/api/organizations/@current/members/${owner.userId}/`, {
      method: 'PATCH',
      body: JSON.stringify({ level: 1 }),
    })
    expect(onOwner.status).toBe(403)
    expect(await json(onOwner)).toMatchObject({ detail: 'You can only edit others with level lower or equal to you.' })
  })

  it('keeps an owner: an owner can neither leave nor change their own level; a member can leave', async () => {
    const owner = await service.account()
    const member = await joined(owner, 1)
    const leave = await service.api(owner, '/api/organizations/@current/members/@me/', { method: 'DELETE' })
    expect(leave.status).toBe(400)
    expect(await json(leave)).toMatchObject({ detail: 'Cannot leave the organization as its owner!' })
    const demote = await service.api(owner, `/api/organizations/@current/members/${owner.userId}/`, {
      method: 'PATCH',
      body: JSON.stringify({ level: 8 }),
    })
    expect(demote.status).toBe(403)
    expect(await json(demote)).toMatchObject({ detail: "You can't change your own access level." })
    const memberOrganization = owner.organizationId
    expect((await service.api(member, `/api/organizations/${memberOrganization}/members/@me/`, { method: 'DELETE' })).status).toBe(204)
    expect((await service.api(member, `/api/organizations/${memberOrganization}/members/`)).status).toBe(404)
  })

  it('refuses invites above the inviter, to members, to another address, and withdrawal by a member', async () => {
    const owner = await service.account()
    const member = await joined(owner, 1)
    const above = await service.api(member, '/api/organizations/@current/invites/', {
      method: 'POST',
      body: JSON.stringify({ target_email: 'someone@example.com', level: 8 }),
    })
    expect(above.status).toBe(403)
    expect(await json(above)).toMatchObject({ detail: 'You cannot invite a user with a higher permission level than your own.' })
    const existing = await service.api(owner, '/api/organizations/@current/invites/', {
      method: 'POST',
      body: JSON.stringify({ target_email: await emailOf(member) }),
    })
    expect(existing.status).toBe(400)
    expect(await json(existing)).toMatchObject({ detail: 'A user with this email address already belongs to the organization.' })
    const badEmail = await service.api(owner, '/api/organizations/@current/invites/', {
      method: 'POST',
      body: JSON.stringify({ target_email: 'not an email' }),
    })
    expect(badEmail.status).toBe(400)
    expect(await json(badEmail)).toMatchObject({ attr: 'target_email' })

    const invite = await json(
      await service.api(owner, '/api/organizations/@current/invites/', {
        method: 'POST',
        body: JSON.stringify({ target_email: 'Someone@Example.COM' }),
      }),
    )
    expect(invite).toMatchObject({ target_email: 'Someone@example.com', level: 1, is_expired: false, created_by: { id: owner.userId } })
    const stranger = await service.account()
    const wrongUser = await service.api(stranger, `/api/signup/${invite.id}/`, { method: 'POST' })
    expect(wrongUser.status).toBe(400)
    expect(await json(wrongUser)).toMatchObject({ detail: 'This invite is intended for another email address.' })
    const listed = (await json(await service.api(member, '/api/organizations/@current/invites/'))) as unknown as unknown[]
    expect(listed).toHaveLength(1)
    expect((await service.api(member, `/api/organizations/@current/invites/${invite.id}/`, { method: 'DELETE' })).status).toBe(403)
    expect((await service.api(owner, `/api/organizations/@current/invites/${invite.id}/`, { method: 'DELETE' })).status).toBe(204)
    expect(await json(await service.api(owner, '/api/organizations/@current/invites/'))).toEqual([])
  })

  it('adds a user to an existing organization with the CLI', async () => {
    const owner = await service.account()
    const env = { ...process.env, DATABASE_URL: service.config.DATABASE_URL, DATA_DIR: service.config.DATA_DIR }
    const email = `cli-${owner.userId}@example.com`
    const created = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/admin/cli.ts',
        'create-user',
        '--email',
        email,
        '--organization-id',
        owner.organizationId,
        '--level',
        'admin',
        '--json',
      ],
      { cwd: SERVER_DIR, env },
    )
    const result = JSON.parse(created.stdout) as { personal_api_key: string; organization_id: string; project_id: number }
    expect(result).toMatchObject({ organization_id: owner.organizationId, project_id: owner.projectId })
    const members = (await json(await service.api(owner, '/api/organizations/@current/members/'))) as unknown as Array<Record<string, any>>
    expect(members.find((m) => m.user.email === email)).toMatchObject({ level: 8 })
    expect((await withKey(result.personal_api_key, `/api/projects/${owner.projectId}/cohorts/`)).status).toBe(200)
  })
})
