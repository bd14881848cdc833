import { isolatedDatabaseUrl, waitFor, type TestAccount } from '@burrow/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
// Cohorts are calculated again once their last calculation is two seconds old; the service has
// a database of its own, so that it recalculates only this file's cohorts.
let isolated: Awaited<ReturnType<typeof isolatedDatabaseUrl>>
beforeAll(async () => {
  isolated = await isolatedDatabaseUrl()
  service = await startTestService({
    ...(isolated ? { DATABASE_URL: isolated.url } : {}),
    COHORT_RECALCULATE_AFTER_S: 2,
    COHORT_CHECK_INTERVAL_MS: 250,
  })
  account = await service.account()
})
afterAll(async () => {
  await service?.stop()
  await isolated?.drop()
})

const COHORT_FIELDS = [
  'count',
  'created_at',
  'created_by',
  'deleted',
  'description',
  'errors_calculating',
  'filters',
  'groups',
  'id',
  'is_calculating',
  'is_static',
  'last_calculation',
  'name',
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

/** The cohort once a calculation has finished (`last_calculation` set, not calculating). */
function calculated(id: number, owner = account, ready: (c: Record<string, any>) => boolean = () => true): Promise<Record<string, any>> {
  return waitFor(
    async () => {
      const cohort = await (await service.api(owner, `/api/projects/${owner.projectId}/cohorts/${id}/`)).json()
      return !cohort.is_calculating && cohort.last_calculation && ready(cohort) ? cohort : undefined
    },
    { what: `a calculation of cohort ${id}`, timeoutMs: 20_000, intervalMs: 100 },
  )
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
    // The calculation starts with the creation and runs in the background.
    expect(body.is_calculating).toBe(true)
    const { is_calculating: _a, count: _b, last_calculation: _c, ...stored } = body
    const fetched = await (await service.api(account, `/api/projects/@current/cohorts/${body.id}/`)).json()
    expect(fetched).toMatchObject(stored)
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
    [
      'a condition of an unknown type',
      { filters: { properties: { type: 'AND', values: [{ key: 'x', type: 'planet' }] } } },
      'filters__properties__values__0__type',
    ],
    ['a group that is neither AND nor OR', { filters: { properties: { type: 'XOR', values: [] } } }, 'filters__properties__type'],
    [
      'an unknown operator',
      { filters: { properties: { type: 'AND', values: [{ key: 'x', type: 'person', operator: 'near' }] } } },
      'filters__properties__values__0__operator',
    ],
    [
      'a condition deep in nested groups',
      {
        filters: {
          properties: {
            type: 'OR',
            values: [
              {
                type: 'AND',
                values: [
                  { key: 'a', type: 'person' },
                  { key: '', type: 'person' },
                ],
              },
            ],
          },
        },
      },
      'filters__properties__values__0__values__1__key',
    ],
    ['groups that are not a list', { groups: { a: 1 } }, 'groups'],
    ['a name that is not text', { name: true }, 'name'],
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
    await calculated(cohort.id, fresh)
    const renamed = await (
      await service.api(fresh, path, { method: 'PATCH', body: JSON.stringify({ name: 'After', is_calculating: true }) })
    ).json()
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

  it('refuses a hard delete with 405 and no body, as PostHog does', async () => {
    const { body: cohort } = await createCohort({ name: 'Keep' })
    const res = await service.api(account, `/api/projects/${account.projectId}/cohorts/${cohort.id}/`, { method: 'DELETE' })
    expect(res.status).toBe(405)
    expect(await res.text()).toBe('')
    expect((await service.api(account, `/api/projects/${account.projectId}/cohorts/${cohort.id}/`)).status).toBe(200)
  })

  it('lists newest first with pagination, and searches names word by word', async () => {
    const fresh = await service.account()
    for (const name of ['one', 'two', 'three']) await createCohort({ name }, fresh)
    const page = await (await service.api(fresh, `/api/projects/${fresh.projectId}/cohorts/?limit=2`)).json()
    expect(page.count).toBe(3)
    expect(page.results.map((c: { name: string }) => c.name)).toEqual(['three', 'two'])
    expect(page.next).toContain('offset=2')
    const search = async (text: string) =>
      (await (await service.api(fresh, `/api/projects/${fresh.projectId}/cohorts/?search=${encodeURIComponent(text)}`)).json()).results.map(
        (c: { name: string }) => c.name,
      )
    expect(await search('E T')).toEqual(['three'])
    expect(await search('o')).toEqual(['two', 'one'])
    expect(await search('one two')).toEqual([])
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
})

describe('cohort members', () => {
  let project: TestAccount
  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString()
  const person = (distinctId: string, properties: Record<string, unknown>) => ({
    event: 'seen',
    distinct_id: distinctId,
    properties: { $set: properties },
  })

  beforeAll(async () => {
    project = await service.account()
    const batch = [
      person('ann', { email: 'ann@acme.com', plan: 'pro' }),
      person('bob', { email: 'bob@acme.com', plan: 'free' }),
      person('cat', { email: 'cat@other.org', plan: 'pro' }),
      person('dan', { email: 'dan@other.org' }),
      ...['ann', 'ann', 'cat'].map((d) => ({ event: 'purchase', distinct_id: d, timestamp: daysAgo(2) })),
      { event: 'purchase', distinct_id: 'dan', timestamp: daysAgo(60) },
    ]
    const res = await service.post('/batch/', { api_key: project.projectToken, batch })
    expect(res.status).toBe(200)
    await service.eventsOf(project, batch.length)
  })

  const create = (body: Record<string, unknown>) => createCohort(body, project).then((r) => r.body)
  const members = async (id: number, query = '') => {
    const page = await (await service.api(project, `/api/projects/${project.projectId}/cohorts/${id}/persons/${query}`)).json()
    return (page.results as Array<{ distinct_ids: string[] }>).map((p) => p.distinct_ids[0]).sort()
  }
  const group = (...values: unknown[]) => ({ properties: { type: 'AND', values } })

  it('calculates a person-property cohort in the background and lists its members as JSON and CSV', async () => {
    const cohort = await create({
      name: 'Acme',
      filters: group({ key: 'email', value: 'acme.com', operator: 'icontains', type: 'person' }),
    })
    expect(cohort).toMatchObject({ is_calculating: true, count: null, last_calculation: null })
    const done = await calculated(cohort.id, project)
    expect(done).toMatchObject({ count: 2, errors_calculating: 0 })
    expect(Date.parse(done.last_calculation)).toBeGreaterThan(Date.now() - 60_000)
    expect(await members(cohort.id)).toEqual(['ann', 'bob'])
    expect(await members(cohort.id, '?search=bob')).toEqual(['bob'])

    const path = `/api/projects/${project.projectId}/cohorts/${cohort.id}/persons/`
    const page = await (await service.api(project, `${path}?limit=1`)).json()
    expect(page).toMatchObject({ count: 2, next: expect.stringContaining('offset=1') })
    const ann = (await (await service.api(project, `${path}?search=ann`)).json()).results[0]
    expect(Object.keys(ann)).toEqual([
      'type',
      'id',
      'uuid',
      'created_at',
      'properties',
      'is_identified',
      'name',
      'distinct_ids',
      'matched_recordings',
      'value_at_data_point',
    ])
    expect(ann).toMatchObject({ type: 'person', id: ann.uuid, distinct_ids: ['ann'], matched_recordings: [], value_at_data_point: null })
    expect(ann.uuid).toMatch(/^[0-9a-f-]{36}$/)

    const csv = await service.api(project, `${path}?format=csv`)
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/)
    const [header, ...rows] = (await csv.text()).trim().split('\n')
    // PostHog's columns, sorted by name as its renderer sorts them: the email lifted out of the properties.
    expect(header!.split(',')).toEqual(['created_at', 'distinct_ids.0', 'email', 'id', 'name', 'properties.plan'])
    expect(rows).toHaveLength(2)
    expect(rows.some((row) => row.split(',').slice(2, 4).join(',') === `ann@acme.com,${ann.uuid}`)).toBe(true)

    // Events and persons filter on the cohort's members too.
    const inCohort = encodeURIComponent(JSON.stringify([{ key: 'id', value: cohort.id, type: 'cohort' }]))
    const events = await (await service.api(project, `/api/projects/${project.projectId}/events/?properties=${inCohort}`)).json()
    expect([...new Set(events.results.map((e: { distinct_id: string }) => e.distinct_id))].sort()).toEqual(['ann', 'bob'])
    const outside = encodeURIComponent(JSON.stringify([{ key: 'id', value: cohort.id, type: 'cohort', operator: 'not_in' }]))
    const persons = await (await service.api(project, `/api/projects/${project.projectId}/persons/?properties=${outside}`)).json()
    expect(persons.results.map((p: { distinct_ids: string[] }) => p.distinct_ids[0]).sort()).toEqual(['cat', 'dan'])
  })

  it("lists a person's cohorts as of each one's latest calculation (PostHog's persons/cohorts)", async () => {
    const pro = await create({ name: 'Pro', filters: group({ key: 'plan', value: 'pro', type: 'person' }) })
    const acme = await create({
      name: 'Acme people',
      filters: group({ key: 'email', value: 'acme.com', operator: 'icontains', type: 'person' }),
    })
    await calculated(pro.id, project)
    await calculated(acme.id, project)
    const personOf = async (distinctId: string) =>
      (await (await service.api(project, `/api/projects/${project.projectId}/persons/?distinct_id=${distinctId}`)).json()).results[0]
    const cohortsOf = async (personId: string) => {
      const res = await service.api(project, `/api/projects/${project.projectId}/persons/cohorts/?person_id=${personId}`)
      expect(res.status).toBe(200)
      return ((await res.json()).results as Array<{ name: string }>).map((c) => c.name)
    }
    const ann = await personOf('ann')
    expect(await cohortsOf(ann.uuid)).toEqual(expect.arrayContaining(['Pro', 'Acme people']))
    // bob is in Acme but not Pro; cat in Pro but not Acme.
    const bob = await personOf('bob')
    const bobCohorts = await cohortsOf(bob.uuid)
    expect(bobCohorts).toContain('Acme people')
    expect(bobCohorts).not.toContain('Pro')
    const catCohorts = await cohortsOf((await personOf('cat')).uuid)
    expect(catCohorts).toContain('Pro')
    expect(catCohorts).not.toContain('Acme people')

    // After a change of definition and its calculation, the new members' cohorts say so.
    await service.api(project, `/api/projects/${project.projectId}/cohorts/${pro.id}/`, {
      method: 'PATCH',
      body: JSON.stringify({ filters: group({ key: 'plan', value: 'free', type: 'person' }) }),
    })
    await calculated(pro.id, project, (c) => c.count === 1)
    expect(await cohortsOf(ann.uuid)).not.toContain('Pro')
    expect(await cohortsOf(bob.uuid)).toContain('Pro')

    const missing = await service.api(
      project,
      `/api/projects/${project.projectId}/persons/cohorts/?person_id=00000000-0000-0000-0000-000000000000`,
    )
    expect(missing.status).toBe(404)
    const unnamed = await service.api(project, `/api/projects/${project.projectId}/persons/cohorts/`)
    expect(unnamed.status).toBe(400)
    expect((await unnamed.json()).attr).toBe('person_id')
  })

  it('calculates behavioural conditions over a time window, negations and AND/OR groups', async () => {
    const twice = await create({
      name: 'Bought twice this month',
      filters: group({
        key: 'purchase',
        type: 'behavioral',
        value: 'performed_event_multiple',
        operator: 'gte',
        operator_value: 2,
        time_value: 30,
        time_interval: 'day',
      }),
    })
    const once = await create({
      name: 'Bought recently',
      filters: group({ key: 'purchase', type: 'behavioral', value: 'performed_event', time_value: 1, time_interval: 'week' }),
    })
    const proNonBuyers = await create({
      name: 'Pro without purchases',
      filters: group(
        { key: 'plan', value: 'pro', type: 'person' },
        { key: 'purchase', type: 'behavioral', value: 'performed_event', time_value: 30, time_interval: 'day', negation: true },
      ),
    })
    const either = await create({
      name: 'Free or other.org',
      filters: {
        properties: {
          type: 'OR',
          values: [
            { type: 'AND', values: [{ key: 'plan', value: 'free', type: 'person' }] },
            { type: 'AND', values: [{ key: 'email', value: 'other\\.org$', operator: 'regex', type: 'person' }] },
          ],
        },
      },
    })
    expect((await calculated(twice.id, project)).count).toBe(1)
    expect(await members(twice.id)).toEqual(['ann'])
    expect(await members((await calculated(once.id, project)).id)).toEqual(['ann', 'cat'])
    await calculated(proNonBuyers.id, project)
    expect(await members(proNonBuyers.id)).toEqual([])
    await calculated(either.id, project)
    expect(await members(either.id)).toEqual(['bob', 'cat', 'dan'])
  })

  it('calculates legacy groups and cohorts made of other cohorts', async () => {
    const legacy = await create({
      name: 'Legacy',
      groups: [{ properties: [{ key: 'plan', value: 'free', type: 'person' }] }, { event_id: 'purchase', days: 90, count: 1 }],
    })
    await calculated(legacy.id, project)
    expect(await members(legacy.id)).toEqual(['ann', 'bob', 'cat', 'dan'])

    const pro = await create({ name: 'Pro', filters: group({ key: 'plan', value: 'pro', type: 'person' }) })
    await calculated(pro.id, project)
    const notPro = await create({ name: 'Not pro', filters: group({ key: 'id', value: pro.id, type: 'cohort', negation: true }) })
    await calculated(notPro.id, project)
    expect(await members(notPro.id)).toEqual(['bob', 'dan'])
  })

  it('takes the members of a static cohort from an uploaded CSV or a JSON list, and adds more later', async () => {
    const form = new FormData()
    form.set('name', 'Uploaded')
    form.set('is_static', 'true')
    form.set('csv', new Blob(['distinct_id\nann\ncat\nnobody\n'], { type: 'text/csv' }), 'people.csv')
    const res = await fetch(`${service.baseUrl}/api/projects/${project.projectId}/cohorts/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${project.personalApiKey}` },
      body: form,
    })
    expect(res.status).toBe(201)
    const uploaded = await res.json()
    expect(uploaded).toMatchObject({ name: 'Uploaded', is_static: true })
    expect((await calculated(uploaded.id, project)).count).toBe(2)
    expect(await members(uploaded.id)).toEqual(['ann', 'cat'])

    const path = `/api/projects/${project.projectId}/cohorts/${uploaded.id}/`
    await service.api(project, path, { method: 'PATCH', body: JSON.stringify({ distinct_ids: ['dan'] }) })
    await calculated(uploaded.id, project, (c) => c.count === 3)
    expect(await members(uploaded.id)).toEqual(['ann', 'cat', 'dan'])

    const listed = await create({ name: 'Listed', is_static: true, distinct_ids: ['bob'] })
    expect((await calculated(listed.id, project)).count).toBe(1)
    const dynamic = await createCohort({ name: 'Not static', distinct_ids: ['bob'] }, project)
    expect(dynamic.status).toBe(400)
    expect(dynamic.body).toMatchObject({ type: 'validation_error', attr: 'csv' })
  })

  it('recalculates after a change of definition, and periodically as persons change', async () => {
    const cohort = await create({ name: 'Plan', filters: group({ key: 'plan', value: 'free', type: 'person' }) })
    expect((await calculated(cohort.id, project)).count).toBe(1)
    const path = `/api/projects/${project.projectId}/cohorts/${cohort.id}/`
    await service.api(project, path, {
      method: 'PATCH',
      body: JSON.stringify({ filters: group({ key: 'plan', value: 'pro', type: 'person' }) }),
    })
    await calculated(cohort.id, project, (c) => c.count === 2)
    expect(await members(cohort.id)).toEqual(['ann', 'cat'])

    await service.post('/capture/', {
      api_key: project.projectToken,
      event: 'upgraded',
      distinct_id: 'dan',
      properties: { $set: { plan: 'pro' } },
    })
    await calculated(cohort.id, project, (c) => c.count === 3)
    expect(await members(cohort.id)).toEqual(['ann', 'cat', 'dan'])
  })

  it('counts a calculation that cannot run in errors_calculating', async () => {
    const cohort = await create({
      name: 'Unsupported',
      filters: group({ key: 'purchase', type: 'behavioral', value: 'performed_event_sequence', time_value: 30, time_interval: 'day' }),
    })
    const failed = await calculated(cohort.id, project, (c) => c.errors_calculating > 0)
    expect(failed).toMatchObject({ is_calculating: false, count: null })
  })
})

describe('cohorts checked as PostHog checks them', () => {
  const path = (owner: TestAccount, id: number) => `/api/projects/${owner.projectId}/cohorts/${id}/`
  const patch = (owner: TestAccount, id: number, body: unknown) =>
    service.api(owner, path(owner, id), { method: 'PATCH', body: JSON.stringify(body) })
  const naming = (...ids: number[]) => ({
    properties: { type: 'AND', values: ids.map((id) => ({ key: 'id', type: 'cohort', value: id })) },
  })
  const person = { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } }
  const behavioural = {
    properties: {
      type: 'AND',
      values: [{ key: 'signed up', type: 'behavioral', value: 'performed_event', time_value: 30, time_interval: 'day' }],
    },
  }
  const loop = { type: 'validation_error', code: 'invalid_input', detail: 'Cohorts cannot reference other cohorts in a loop.', attr: null }

  it('refuses a cohort that names itself, or a chain of cohorts that comes back to it, and keeps its definition', async () => {
    const owner = await service.account()
    const a = (await createCohort({ name: 'A', filters: person }, owner)).body
    const b = (await createCohort({ name: 'B', filters: naming(a.id) }, owner)).body
    const c = (await createCohort({ name: 'C', groups: [{ properties: [{ key: 'id', type: 'cohort', value: b.id }] }] }, owner)).body

    const itself = await patch(owner, a.id, { filters: naming(a.id) })
    expect(itself.status).toBe(400)
    expect(await itself.json()).toEqual(loop)
    const chain = await patch(owner, a.id, { name: 'A again', filters: naming(c.id) })
    expect(chain.status).toBe(400)
    expect(await chain.json()).toEqual(loop)
    const legacy = await patch(owner, a.id, { groups: [{ properties: [{ key: 'id', type: 'cohort', value: b.id }] }] })
    expect(legacy.status).toBe(400)

    const stored = await (await service.api(owner, path(owner, a.id))).json()
    expect(stored).toMatchObject({ name: 'A', filters: person })
    // A cohort may name the same cohort twice, or two that share one: no loop there.
    expect((await patch(owner, c.id, { filters: naming(a.id, b.id) })).status).toBe(200)
  })

  it("refuses a flag naming a cohort that names a behavioural cohort, and a change that makes a flag's cohort behavioural", async () => {
    const owner = await service.account()
    const events = (await createCohort({ name: 'Signed up', filters: behavioural }, owner)).body
    const outer = (await createCohort({ name: 'Outer', filters: naming(events.id) }, owner)).body
    const flags = `/api/projects/${owner.projectId}/feature_flags/`
    const flagOn = (cohortId: number, key: string) =>
      service.api(owner, flags, {
        method: 'POST',
        body: JSON.stringify({
          key,
          filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohortId }], rollout_percentage: 100 }] },
        }),
      })
    const refused = await flagOn(outer.id, 'through-outer')
    expect(refused.status).toBe(400)
    expect(await refused.json()).toEqual({
      type: 'validation_error',
      code: 'behavioral_cohort_found',
      detail: "Cohort 'Signed up' with filters on events cannot be used in feature flags.",
      attr: 'filters',
    })

    const plain = (await createCohort({ name: 'Plain', filters: person }, owner)).body
    const wrapper = (await createCohort({ name: 'Wrapper', filters: naming(plain.id) }, owner)).body
    expect((await flagOn(wrapper.id, 'through-wrapper')).status).toBe(201)
    for (const [id, filters] of [
      [wrapper.id, behavioural],
      [plain.id, behavioural],
      [plain.id, naming(events.id)],
    ] as const) {
      const res = await patch(owner, id, { filters })
      expect(res.status).toBe(400)
      expect(await res.json()).toMatchObject({ type: 'validation_error', code: 'behavioral_cohort_found', attr: 'filters' })
    }
    // A cohort no flag uses may take behaviour.
    expect((await patch(owner, outer.id, { filters: behavioural })).status).toBe(200)
  })

  it('answers the filters derived from legacy groups, and refuses filters without properties', async () => {
    const owner = await service.account()
    const { body } = await createCohort(
      { name: 'Legacy', groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }, { event_id: '$pageview', days: 7 }] },
      owner,
    )
    expect(body.filters).toEqual({
      properties: {
        type: 'OR',
        values: [
          { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] },
          {
            type: 'AND',
            values: [
              {
                key: '$pageview',
                type: 'behavioral',
                value: 'performed_event',
                event_type: 'events',
                time_interval: 'day',
                time_value: 7,
                operator_value: 0,
              },
            ],
          },
        ],
      },
    })
    const empty = (await createCohort({ name: 'Empty' }, owner)).body
    expect(empty.filters).toEqual({ properties: {} })
    // The filters derived from legacy groups can be sent back as filters.
    expect((await patch(owner, body.id, { filters: body.filters })).status).toBe(200)
    expect((await patch(owner, empty.id, { filters: empty.filters })).status).toBe(200)

    for (const filters of [{}, { groups: [] }, 'properties']) {
      const res = await createCohort({ name: 'No properties', filters }, owner)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({
        type: 'validation_error',
        code: 'invalid_input',
        detail: "Filters must be a dictionary with a 'properties' key.",
        attr: 'filters',
      })
    }
  })
})
