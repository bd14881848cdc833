import type { AppRouter } from '@burrow/api'
import { createTRPCClient, httpBatchLink } from '@trpc/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitFor, type TestAccount } from '@burrow/testing'
import { startTestService, type TestService } from './service'

let service: TestService
let account: TestAccount

beforeAll(async () => {
  service = await startTestService({ SITE_URL: 'https://analytics.example.com' })
  account = await service.account()
})
afterAll(() => service?.stop())

describe('projects', () => {
  it('creates a project with a phc_ token, answering 201 with every field', async () => {
    // A project created becomes its creator's current one: a user of its own leaves `account`'s as it was.
    const creator = await service.account()
    const res = await service.api(creator, '/api/projects/', {
      method: 'POST',
      body: JSON.stringify({ name: 'Web app', timezone: 'Europe/Paris', app_urls: ['https://x.test'], id: 999, ingested_event: true }),
    })
    expect(res.status).toBe(201)
    const project = await res.json()
    expect(project.api_token).toMatch(/^phc_[0-9A-Za-z]{40,}$/)
    expect(project).toMatchObject({ name: 'Web app', timezone: 'Europe/Paris', app_urls: ['https://x.test'], ingested_event: false })
    expect(project.id).not.toBe(999)
    expect(Object.keys(project).sort()).toEqual(
      [
        'id',
        'uuid',
        'organization',
        'api_token',
        'app_urls',
        'name',
        'chat_incoming_webhook',
        'created_at',
        'updated_at',
        'anonymize_ips',
        'cookieless_server_hash_mode',
        'completed_snippet_onboarding',
        'ingested_event',
        'test_account_filters',
        'test_account_filters_default_checked',
        'path_cleaning_filters',
        'is_demo',
        'timezone',
        'week_start_day',
        'data_attributes',
        'person_display_name_properties',
        'correlation_config',
        'session_recording_opt_in',
        'capture_console_log_opt_in',
        'effective_membership_level',
        'access_control',
        'has_group_types',
        'primary_dashboard',
        'live_events_columns',
        'recording_domains',
      ].sort(),
    )
    const list = await (await service.api(creator, '/api/projects/')).json()
    expect(list.count).toBe(2)
    expect(Object.keys(list.results[0]).sort()).toEqual([
      'access_control',
      'api_token',
      'completed_snippet_onboarding',
      'effective_membership_level',
      'id',
      'ingested_event',
      'is_demo',
      'name',
      'organization',
      'timezone',
      'uuid',
    ])
  })

  it("makes the project created the user's current project, for @current and /users/@me/", async () => {
    const creator = await service.account()
    const created = await (await service.api(creator, '/api/projects/', { method: 'POST', body: '{"name":"Second"}' })).json()
    expect(created.id).not.toBe(creator.projectId)
    expect((await (await service.api(creator, '/api/projects/@current/')).json()).id).toBe(created.id)
    expect((await (await service.api(creator, '/api/users/@me/')).json()).team).toMatchObject({ id: created.id, name: 'Second' })
  })

  it('refuses a primary dashboard that names no dashboard, as does_not_exist', async () => {
    const creator = await service.account()
    for (const [method, path] of [
      ['POST', '/api/projects/'],
      ['PATCH', `/api/projects/${creator.projectId}/`],
    ] as const) {
      const res = await service.api(creator, path, { method, body: '{"primary_dashboard":12345}' })
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual({
        type: 'validation_error',
        code: 'does_not_exist',
        detail: 'Invalid pk "12345" - object does not exist.',
        attr: 'primary_dashboard',
      })
    }
    expect(
      (await service.api(creator, `/api/projects/${creator.projectId}/`, { method: 'PATCH', body: '{"primary_dashboard":null}' })).status,
    ).toBe(200)

    // A dashboard of the project may be its primary one; another project's may not.
    const other = await service.account()
    const dashboardOf = async (account: typeof creator) => {
      const res = await service.api(account, `/api/projects/${account.projectId}/dashboards/`, {
        method: 'POST',
        body: JSON.stringify({ name: 'Main' }),
      })
      expect(res.status).toBe(201)
      return ((await res.json()) as { id: number }).id
    }
    const own = await dashboardOf(creator)
    const set = await service.api(creator, `/api/projects/${creator.projectId}/`, {
      method: 'PATCH',
      body: JSON.stringify({ primary_dashboard: own }),
    })
    expect(set.status).toBe(200)
    expect(await set.json()).toMatchObject({ primary_dashboard: own })
    const foreign = await service.api(creator, `/api/projects/${creator.projectId}/`, {
      method: 'PATCH',
      body: JSON.stringify({ primary_dashboard: await dashboardOf(other) }),
    })
    expect(foreign.status).toBe(400)
  })

  it("coerces what DRF coerces and refuses the rest with DRF's code and words", async () => {
    const owner = await service.account()
    const path = `/api/projects/${owner.projectId}/`
    const patch = (body: unknown) => service.api(owner, path, { method: 'PATCH', body: JSON.stringify(body) })
    const coerced = await patch({ anonymize_ips: 'true', session_recording_opt_in: 1, name: 42 })
    expect(coerced.status).toBe(200)
    expect(await coerced.json()).toMatchObject({ anonymize_ips: true, session_recording_opt_in: true, name: '42' })
    for (const [body, expected] of [
      [{ anonymize_ips: 'sometimes' }, { code: 'invalid_input', detail: 'Must be a valid boolean.', attr: 'anonymize_ips' }],
      [{ app_urls: 'https://a.test' }, { code: 'not_a_list', detail: 'Expected a list of items but got type "str".', attr: 'app_urls' }],
      [{ name: null }, { code: 'null', detail: 'This field may not be null.', attr: 'name' }],
      [{ name: '' }, { code: 'blank', detail: 'This field may not be blank.', attr: 'name' }],
      [{ name: 'n'.repeat(201) }, { code: 'max_length', detail: 'Ensure this field has no more than 200 characters.', attr: 'name' }],
      [{ primary_dashboard: 'first' }, { code: 'invalid_input', detail: 'A valid integer is required.', attr: 'primary_dashboard' }],
    ] as const) {
      const res = await patch(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(await res.json(), JSON.stringify(body)).toEqual({ type: 'validation_error', ...expected })
    }
  })

  it('keeps the week start day a PATCH sets (Monday, back to Sunday), and refuses a day that is not a choice', async () => {
    const path = `/api/projects/${account.projectId}/`
    const patch = async (week_start_day: unknown) => {
      const res = await service.api(account, path, { method: 'PATCH', body: JSON.stringify({ week_start_day }) })
      return { status: res.status, body: (await res.json()) as Record<string, unknown> }
    }
    expect((await (await service.api(account, path)).json()).week_start_day).toBeNull()
    expect((await patch(1)).body.week_start_day).toBe(1)
    expect((await (await service.api(account, path)).json()).week_start_day).toBe(1)
    const refused = await patch(2)
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ type: 'validation_error', attr: 'week_start_day' })
    expect((await patch(0)).body.week_start_day).toBe(0)
  })

  it('answers 400 validation_error with the field for a time zone outside the list', async () => {
    const res = await service.api(account, '/api/projects/', {
      method: 'POST',
      body: JSON.stringify({ name: 'x', timezone: 'Mars/Olympus' }),
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ type: 'validation_error', code: 'invalid_choice', attr: 'timezone' })
  })

  it('reads @current as the current project and deletes a project with its events, cohorts and plugin logs', async () => {
    const fresh = await service.account()
    const current = await (await service.api(fresh, '/api/projects/@current')).json()
    expect(current.id).toBe(fresh.projectId)
    await service.post('/capture/', { api_key: fresh.projectToken, event: 'doomed', distinct_id: 'd' })
    await service.eventsOf(fresh, 1)
    const scoped = `/api/projects/${fresh.projectId}`
    await service.api(fresh, `${scoped}/cohorts/`, { method: 'POST', body: '{"name":"doomed"}' })
    await service.api(fresh, `${scoped}/plugin_configs/`, { method: 'POST', body: '{"plugin":1}' })
    const del = await service.api(fresh, `/api/projects/${fresh.projectId}/`, { method: 'DELETE' })
    expect(del.status).toBe(204)
    expect((await service.api(fresh, `/api/projects/${fresh.projectId}/`)).status).toBe(404)
    const capture = await service.post('/capture/', { api_key: fresh.projectToken, event: 'late', distinct_id: 'd' })
    expect(capture.status).toBe(401)
    const left = await service.app.deps.ch.reader.query({
      query: 'SELECT count() AS n FROM events WHERE team_id = {t:Int64}',
      query_params: { t: fresh.projectId },
      format: 'JSONEachRow',
    })
    expect(Number((await left.json<{ n: string }>())[0]?.n)).toBe(0)
    const logs = await service.app.deps.ch.reader.query({
      query: 'SELECT count() AS n FROM plugin_log_entries WHERE team_id = {t:Int64}',
      query_params: { t: fresh.projectId },
      format: 'JSONEachRow',
    })
    expect(Number((await logs.json<{ n: string }>())[0]?.n)).toBe(0)
    const [rows] = await service.app.deps.sql<{ n: number }[]>`
      select (select count(*) from cohorts where project_id = ${fresh.projectId})
        + (select count(*) from plugin_configs where project_id = ${fresh.projectId}) as n`
    expect(Number(rows!.n)).toBe(0)
  })

  it('answers 400 for a body that is not a JSON object, and for one that is not JSON', async () => {
    for (const [body, detail] of [
      ['[1,2]', 'Invalid data. Expected a dictionary, but got list.'],
      ['"name"', 'Invalid data. Expected a dictionary, but got str.'],
    ]) {
      const res = await service.api(account, '/api/projects/', { method: 'POST', body })
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual({ type: 'validation_error', code: 'invalid_input', detail, attr: null })
    }
    const broken = await service.api(account, '/api/projects/', { method: 'POST', body: '{"name":' })
    expect(broken.status).toBe(400)
    expect(await broken.json()).toMatchObject({ type: 'invalid_request', code: 'parse_error' })
  })

  it('says has_group_types once an event names a group type, also in the answer to an update', async () => {
    const fresh = await service.account()
    const project = async () =>
      (await (await service.api(fresh, `/api/projects/${fresh.projectId}/`)).json()) as { has_group_types: boolean }
    expect((await project()).has_group_types).toBe(false)
    const res = await service.post('/capture/', {
      api_key: fresh.projectToken,
      event: 'signed up',
      distinct_id: 'u1',
      properties: { $groups: { company: 'acme' } },
    })
    expect(res.status).toBe(200)
    await waitFor(async () => ((await project()).has_group_types ? true : undefined), { what: 'has_group_types' })
    const updated = await service.api(fresh, `/api/projects/${fresh.projectId}/`, {
      method: 'PATCH',
      body: JSON.stringify({ name: 'Renamed' }),
    })
    expect(await updated.json()).toMatchObject({ name: 'Renamed', has_group_types: true })
  })

  it('answers 405 for a method the route does not have', async () => {
    const res = await service.api(account, '/api/projects/', { method: 'DELETE' })
    expect(res.status).toBe(405)
    expect(await res.json()).toMatchObject({ type: 'invalid_request', code: 'method_not_allowed' })
  })
})

describe('tRPC', () => {
  it('serves the same procedures to a typed client', async () => {
    const client = createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: `${service.baseUrl}/trpc`, headers: { authorization: `Bearer ${account.personalApiKey}` } })],
    })
    const project = await client.projects.get.query({ id: account.projectId })
    expect(project.api_token).toBe(account.projectToken)
    await expect(client.projects.get.query({ id: 999_999_999 })).rejects.toMatchObject({
      data: { httpStatus: 404, problem: { code: 'not_found' } },
    })
  })

  it('creates through tRPC what REST then reads, with the same validation errors', async () => {
    const client = createTRPCClient<AppRouter>({
      links: [httpBatchLink({ url: `${service.baseUrl}/trpc`, headers: { authorization: `Bearer ${account.personalApiKey}` } })],
    })
    const cohort = await client.cohorts.create.mutate({ project_id: '@current', name: 'From a frontend' })
    const viaRest = await (await service.api(account, `/api/projects/${account.projectId}/cohorts/${cohort.id}/`)).json()
    // The cohort's calculation may have finished between the two reads.
    const { is_calculating: _a, count: _b, last_calculation: _c, ...stored } = cohort
    expect(viaRest).toMatchObject(stored)
    await expect(client.pluginConfigs.create.mutate({ project_id: account.projectId, plugin: 999 })).rejects.toMatchObject({
      data: { httpStatus: 400, problem: { type: 'validation_error', attr: 'plugin' } },
    })
  })
})
