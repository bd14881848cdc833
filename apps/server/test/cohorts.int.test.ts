import type { TestAccount } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
})

const COHORT_FIELDS = [
  'count', 'created_at', 'created_by', 'deleted', 'description', 'errors_calculating', 'filters', 'groups', 'id',
  'is_calculating', 'is_static', 'last_calculation', 'name',
]

const filters = {
  properties: {
    type: 'OR',
    values: [
      { type: 'AND', values: [{ key: 'email', value: '@acme.com', operator: 'icontains', type: 'person' }] },
      { type: 'AND', values: [{ key: 'signed up', type: 'behavioral', value: 'performed_event', time_value: 30, time_interval: 'day' }] },
    ],
  },
}

async function createCohort(body: Record<string, unknown>, owner = account) {
  const res = await service.api(owner, `/api/projects/${owner.projectId}/cohorts/`, { method: 'POST', body: JSON.stringify(body) })
  return { status: res.status, body: await res.json() }
}

describe('cohorts', () => {
  it('creates a cohort, answering 201 with every field and the creator as a user summary', async () => {
    const { status, body } = await createCohort({ name: 'Acme users', description: 'From Acme', filters, id: 77, count: 1000 })
    expect(status).toBe(201)
    expect(Object.keys(body).sort()).toEqual(COHORT_FIELDS)
    expect(body).toMatchObject({
      name: 'Acme users',
      description: 'From Acme',
      filters,
      groups: [],
      deleted: false,
      is_static: false,
      errors_calculating: 0,
      created_by: { id: account.userId },
    })
    expect(body.id).not.toBe(77)
    expect(body.count).not.toBe(1000)
    expect(Object.keys(body.created_by).sort()).toEqual(['distinct_id', 'email', 'first_name', 'id', 'uuid'])
    const fetched = await (await service.api(account, `/api/projects/@current/cohorts/${body.id}/`)).json()
    expect(fetched).toEqual(body)
  })

  it('accepts legacy groups and static cohorts', async () => {
    const { status, body } = await createCohort({
      name: 'Legacy',
      groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }, { event_id: '$pageview', days: 7 }],
      is_static: true,
    })
    expect(status).toBe(201)
    expect(body.groups).toHaveLength(2)
    expect(body.is_static).toBe(true)
  })

  it.each([
    ['a condition of an unknown type', { filters: { properties: { type: 'AND', values: [{ key: 'x', type: 'planet' }] } } }, 'filters__properties__values__0'],
    ['a group that is neither AND nor OR', { filters: { properties: { type: 'XOR', values: [] } } }, 'filters__properties__type'],
    ['an unknown operator', { filters: { properties: { type: 'AND', values: [{ key: 'x', type: 'person', operator: 'near' }] } } }, 'filters__properties__values__0'],
    ['groups that are not a list', { groups: { a: 1 } }, 'groups'],
    ['a name that is not text', { name: 42 }, 'name'],
    ['a too long name', { name: 'n'.repeat(401) }, 'name'],
  ])('answers 400 validation_error for %s', async (_name, body, attr) => {
    const res = await createCohort(body)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr })
  })

  it('updates a cohort, soft-deletes it with PATCH deleted and brings it back', async () => {
    const fresh = await service.account()
    const { body: cohort } = await createCohort({ name: 'Before' }, fresh)
    const path = `/api/projects/${fresh.projectId}/cohorts/${cohort.id}/`
    const renamed = await (await service.api(fresh, path, { method: 'PATCH', body: JSON.stringify({ name: 'After', is_calculating: true }) })).json()
    expect(renamed).toMatchObject({ name: 'After', is_calculating: false })

    const deleted = await service.api(fresh, path, { method: 'PATCH', body: JSON.stringify({ deleted: true }) })
    expect(deleted.status).toBe(200)
    expect((await deleted.json()).deleted).toBe(true)
    const list = await (await service.api(fresh, `/api/projects/${fresh.projectId}/cohorts/`)).json()
    expect(list).toMatchObject({ count: 0, results: [], next: null, previous: null })
    expect((await (await service.api(fresh, path)).json()).deleted).toBe(true)

    await service.api(fresh, path, { method: 'PATCH', body: JSON.stringify({ deleted: false }) })
    const back = await (await service.api(fresh, `/api/projects/${fresh.projectId}/cohorts/`)).json()
    expect(back.results.map((c: { id: number }) => c.id)).toEqual([cohort.id])
  })

  it('refuses a hard delete with 405', async () => {
    const { body: cohort } = await createCohort({ name: 'Keep' })
    const res = await service.api(account, `/api/projects/${account.projectId}/cohorts/${cohort.id}/`, { method: 'DELETE' })
    expect(res.status).toBe(405)
    expect(await res.json()).toMatchObject({ type: 'invalid_request', code: 'method_not_allowed', detail: 'Method "DELETE" not allowed.' })
    expect((await service.api(account, `/api/projects/${account.projectId}/cohorts/${cohort.id}/`)).status).toBe(200)
  })

  it('lists newest first with pagination', async () => {
    const fresh = await service.account()
    for (const name of ['one', 'two', 'three']) await createCohort({ name }, fresh)
    const page = await (await service.api(fresh, `/api/projects/${fresh.projectId}/cohorts/?limit=2`)).json()
    expect(page.count).toBe(3)
    expect(page.results.map((c: { name: string }) => c.name)).toEqual(['three', 'two'])
    expect(page.next).toContain('offset=2')
  })

  it("answers 404 for an unknown cohort and for another project's cohort", async () => {
    const other = await service.account()
    const { body: theirs } = await createCohort({ name: 'Theirs' }, other)
    expect((await service.api(account, `/api/projects/${account.projectId}/cohorts/${theirs.id}/`)).status).toBe(404)
    expect((await service.api(account, `/api/projects/${account.projectId}/cohorts/999999/`)).status).toBe(404)
    expect((await service.api(account, `/api/projects/${account.projectId}/cohorts/abc/`)).status).toBe(404)
    const patch = await service.api(account, `/api/projects/${account.projectId}/cohorts/${theirs.id}/`, {
      method: 'PATCH',
      body: JSON.stringify({ name: 'Mine now' }),
    })
    expect(patch.status).toBe(404)
    expect((await (await service.api(other, `/api/projects/${other.projectId}/cohorts/${theirs.id}/`)).json()).name).toBe('Theirs')
  })

  it('lists the persons of a cohort as JSON and as CSV', async () => {
    const { body: cohort } = await createCohort({ name: 'Members' })
    const path = `/api/projects/${account.projectId}/cohorts/${cohort.id}/persons/`
    const json = await service.api(account, path)
    expect(json.status).toBe(200)
    expect(await json.json()).toEqual({ count: 0, next: null, previous: null, results: [] })
    const csv = await service.api(account, `${path}?format=csv`)
    expect(csv.status).toBe(200)
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/)
    expect(await csv.text()).toBe('id,uuid,name,distinct_ids,properties,is_identified,created_at\n')
  })
})
