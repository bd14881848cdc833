import type { TestAccount } from '@burrow/testing'
import { waitFor } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
// Plugin jobs run on whichever server takes them first: this file's service must be the only one.
useTestService(
  (s, a) => {
    service = s
    account = a
  },
  {},
  { ownDatabase: true },
)

const SECRET_MASK = '**************** POSTHOG SECRET FIELD ****************'
// The spec's fields and those PostHog's serializer adds (updated_at, name, description, deleted).
const CONFIG_FIELDS = [
  'config',
  'created_at',
  'deleted',
  'delivery_rate_24h',
  'description',
  'enabled',
  'error',
  'id',
  'name',
  'order',
  'plugin',
  'plugin_info',
  'team_id',
  'updated_at',
]
const WEBHOOK = 5
const PROPERTY_FILTER = 2
const DOWNSAMPLING = 3

const configsPath = (owner: TestAccount) => `/api/projects/${owner.projectId}/plugin_configs/`

async function call(owner: TestAccount, method: string, path: string, body?: unknown) {
  const res = await service.api(owner, path, { method, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  return {
    status: res.status,
    headers: res.headers,
    text,
    body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined,
  }
}

async function logsOf(
  owner: TestAccount,
  id: number,
  query = '',
  atLeast = 1,
): Promise<{ count: number; results: Array<Record<string, any>> }> {
  return waitFor(
    async () => {
      const { body } = await call(owner, 'GET', `${configsPath(owner)}${id}/logs/${query}`)
      // The page, not the count: they are read side by side, so an entry written in between is counted and not listed.
      return body.results?.length >= atLeast ? body : undefined
    },
    { what: `${atLeast} log entries`, timeoutMs: 10_000 },
  )
}

describe('the plugin catalog', () => {
  it('lists the built-in plugins with stable ids and their config schemas', async () => {
    const { status, body } = await call(account, 'GET', '/api/organizations/@current/plugins/')
    expect(status).toBe(200)
    expect(body.count).toBeGreaterThanOrEqual(5)
    const webhook = body.results.find((p: { id: number }) => p.id === WEBHOOK)
    expect(webhook).toMatchObject({ name: 'Webhook Export', plugin_type: 'local' })
    expect(webhook.config_schema.map((f: { key: string }) => f.key)).toEqual(['url', 'secret', 'headers', 'method', 'payload', 'events'])
    expect(Object.keys(webhook.public_jobs)).toEqual(['Export historical events'])
    const byUuid = await call(account, 'GET', `/api/organizations/${account.organizationId}/plugins/?limit=2`)
    expect(byUuid.body.results).toHaveLength(2)
  })
})

describe('plugin configs', () => {
  it('creates a config (201) validated against the plugin schema, with secrets masked', async () => {
    const fresh = await service.account()
    const created = await call(fresh, 'POST', configsPath(fresh), {
      plugin: WEBHOOK,
      enabled: true,
      order: 2,
      config: { url: 'https://hooks.example.com/x', secret: 's3cret', headers: { 'x-team': 'a' }, unknown_key: 'dropped' },
      team_id: 999,
    })
    expect(created.status).toBe(201)
    expect(Object.keys(created.body).sort()).toEqual(CONFIG_FIELDS)
    expect(created.body).toMatchObject({
      plugin: WEBHOOK,
      enabled: true,
      order: 2,
      team_id: fresh.projectId,
      error: null,
      // Nothing delivered yet: PostHog answers 1 without data.
      delivery_rate_24h: 1,
      config: { url: 'https://hooks.example.com/x', secret: SECRET_MASK, headers: SECRET_MASK },
      plugin_info: { id: WEBHOOK, name: 'Webhook Export' },
      name: 'Webhook Export',
      deleted: false,
    })
    expect(created.body.description).toContain('Sends each stored event')
    expect(Date.parse(created.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(created.body.created_at))
    expect(created.body.config).not.toHaveProperty('unknown_key')

    const list = await call(fresh, 'GET', configsPath(fresh))
    expect(list.body.count).toBe(1)
    expect(list.body.results[0].plugin_info).toBeNull()
    expect(JSON.stringify(list.body)).not.toContain('s3cret')
    // The extra headers carry credentials as often as the secret does (an Authorization header).
    expect(JSON.stringify(list.body)).not.toContain('x-team')

    // A masked secret sent back keeps the stored value; a new one replaces it.
    const id = created.body.id
    const kept = await call(fresh, 'PATCH', `${configsPath(fresh)}${id}/`, {
      config: { url: 'https://hooks.example.com/y', secret: SECRET_MASK },
    })
    expect(kept.body.config).toMatchObject({ url: 'https://hooks.example.com/y', secret: SECRET_MASK })
    const [row] = await service.app.deps.sql<{ config: Record<string, unknown> }[]>`select config from plugin_configs where id = ${id}`
    expect(row!.config.secret).toBe('s3cret')
  })

  it('replaces the config a PATCH sends, keeping only the secret fields it leaves out', async () => {
    const fresh = await service.account()
    const { body: created } = await call(fresh, 'POST', configsPath(fresh), {
      plugin: WEBHOOK,
      config: { url: 'https://hooks.example.com/x', secret: 's3cret', headers: '{"x-team":"a"}' },
    })
    const replaced = await call(fresh, 'PATCH', `${configsPath(fresh)}${created.id}/`, { config: { url: 'https://hooks.example.com/z' } })
    expect(replaced.status).toBe(200)
    // The extra headers are a secret field too (they may carry credentials): left out, they stay.
    expect(replaced.body.config).toEqual({ url: 'https://hooks.example.com/z', secret: SECRET_MASK, headers: SECRET_MASK, method: 'POST' })
    // A PATCH without a config leaves it as it is.
    const renamed = await call(fresh, 'PATCH', `${configsPath(fresh)}${created.id}/`, { order: 3 })
    expect(renamed.body.config).toEqual({ url: 'https://hooks.example.com/z', secret: SECRET_MASK, headers: SECRET_MASK, method: 'POST' })
    const [row] = await service.app.deps.sql<
      { config: Record<string, unknown> }[]
    >`select config from plugin_configs where id = ${created.id}`
    expect(row!.config).toEqual({ url: 'https://hooks.example.com/z', secret: 's3cret', headers: '{"x-team":"a"}', method: 'POST' })
  })

  it('refuses to move a webhook to another host with its stored secrets, until they are given again', async () => {
    const fresh = await service.account()
    const { body: created } = await call(fresh, 'POST', configsPath(fresh), {
      plugin: WEBHOOK,
      config: { url: 'https://hooks.example.com/x', secret: 's3cret', headers: '{"authorization":"Bearer t"}' },
    })
    const path = `${configsPath(fresh)}${created.id}/`
    const moved = await call(fresh, 'PATCH', path, {
      config: { url: 'https://elsewhere.example.net/x', secret: SECRET_MASK, headers: SECRET_MASK },
    })
    expect(moved.status).toBe(400)
    expect(moved.body).toEqual({
      type: 'validation_error',
      code: 'required',
      detail: '"Signing secret" must be given again when the URL\'s host changes.',
      attr: 'config__secret',
    })
    const given = await call(fresh, 'PATCH', path, { config: { url: 'https://elsewhere.example.net/x', secret: 'new', headers: '' } })
    expect(given.status).toBe(200)
    const [row] = await service.app.deps.sql<
      { config: Record<string, unknown> }[]
    >`select config from plugin_configs where id = ${created.id}`
    expect(row!.config).toEqual({ url: 'https://elsewhere.example.net/x', secret: 'new', method: 'POST' })
  })

  it("creates a config from a multipart form, as PostHog's frontend sends it (the config as JSON text)", async () => {
    const fresh = await service.account()
    const form = new FormData()
    form.append('plugin', String(WEBHOOK))
    form.append('enabled', 'true')
    form.append('order', '1')
    form.append('config', JSON.stringify({ url: 'https://hooks.example.com/form' }))
    const res = await fetch(`${service.baseUrl}${configsPath(fresh)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fresh.personalApiKey}` },
      body: form,
    })
    expect(res.status).toBe(201)
    expect(await res.json()).toMatchObject({ plugin: WEBHOOK, enabled: true, order: 1, config: { url: 'https://hooks.example.com/form' } })
  })

  it('fills defaults and requires the required fields only to enable', async () => {
    const fresh = await service.account()
    const sampling = await call(fresh, 'POST', configsPath(fresh), { plugin: DOWNSAMPLING })
    expect(sampling.body.config).toEqual({ percentage: '100', samplingMethod: 'Distinct ID aware sampling' })
    const disabled = await call(fresh, 'POST', configsPath(fresh), { plugin: PROPERTY_FILTER })
    expect(disabled.status).toBe(201)
    const enable = await call(fresh, 'PATCH', `${configsPath(fresh)}${disabled.body.id}/`, { enabled: true })
    expect(enable.status).toBe(400)
    expect(enable.body).toMatchObject({ type: 'validation_error', code: 'required', attr: 'config__properties' })
    const ok = await call(fresh, 'PATCH', `${configsPath(fresh)}${disabled.body.id}/`, { enabled: true, config: { properties: '$ip' } })
    expect(ok.body).toMatchObject({ enabled: true, config: { properties: '$ip' } })
  })

  it.each([
    ['an unknown plugin', { plugin: 999 }, 'plugin'],
    ['no plugin', { enabled: true }, 'plugin'],
    ['a choice outside the list', { plugin: 4, config: { defaultNamingConvention: 'SHOUTING' } }, 'config__defaultNamingConvention'],
    ['invalid JSON in a json field', { plugin: WEBHOOK, config: { headers: '{nope' } }, 'config__headers'],
    ['a negative order', { plugin: 1, order: -1 }, 'order'],
    ['enabled that is not a boolean', { plugin: 1, enabled: 'maybe' }, 'enabled'],
  ])('answers 400 validation_error for %s', async (_name, body, attr) => {
    const fresh = await service.account()
    const res = await call(fresh, 'POST', configsPath(fresh), body)
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ type: 'validation_error', attr })
  })

  it('refuses a second config of the same plugin in a project', async () => {
    const fresh = await service.account()
    expect((await call(fresh, 'POST', configsPath(fresh), { plugin: 1 })).status).toBe(201)
    const again = await call(fresh, 'POST', configsPath(fresh), { plugin: 1 })
    expect(again.status).toBe(400)
    expect(again.body).toMatchObject({ attr: 'plugin', code: 'unique' })
  })

  it('deletes with 204: the config disappears but its log stays readable', async () => {
    const fresh = await service.account()
    const { body: config } = await call(fresh, 'POST', configsPath(fresh), { plugin: 1, enabled: true })
    const del = await call(fresh, 'DELETE', `${configsPath(fresh)}${config.id}/`)
    expect(del.status).toBe(204)
    expect(del.text).toBe('')
    expect((await call(fresh, 'GET', `${configsPath(fresh)}${config.id}/`)).status).toBe(404)
    expect((await call(fresh, 'GET', configsPath(fresh))).body.count).toBe(0)
    expect((await call(fresh, 'DELETE', `${configsPath(fresh)}${config.id}/`)).status).toBe(404)
    const logs = await logsOf(fresh, config.id, '', 2)
    expect(logs.results.map((e) => e.message)).toEqual(['Config deleted.', 'Config created (enabled).'])
    // The plugin may be configured anew once the old config is gone.
    expect((await call(fresh, 'POST', configsPath(fresh), { plugin: 1 })).status).toBe(201)
  })

  it("deletes by an update with deleted: true, as PostHog's web app does", async () => {
    const fresh = await service.account()
    const { body: config } = await call(fresh, 'POST', configsPath(fresh), { plugin: 1, enabled: true })
    const kept = await call(fresh, 'PATCH', `${configsPath(fresh)}${config.id}/`, { deleted: false, order: 3 })
    expect(kept.body).toMatchObject({ deleted: false, enabled: true, order: 3 })
    const deleted = await call(fresh, 'PATCH', `${configsPath(fresh)}${config.id}/`, { deleted: true })
    expect(deleted.status).toBe(200)
    expect(deleted.body).toMatchObject({ id: config.id, deleted: true, enabled: false })
    expect((await call(fresh, 'GET', `${configsPath(fresh)}${config.id}/`)).status).toBe(404)
    expect((await call(fresh, 'GET', configsPath(fresh))).body.count).toBe(0)
    expect((await logsOf(fresh, config.id, '', 2)).results[0]!.message).toBe('Config deleted.')
  })

  it('logs what happens to a config, newest first, filtered by type, text and time', async () => {
    const fresh = await service.account()
    const { body: config } = await call(fresh, 'POST', configsPath(fresh), { plugin: 1 })
    await call(fresh, 'PATCH', `${configsPath(fresh)}${config.id}/`, { enabled: true })
    await call(fresh, 'PATCH', `${configsPath(fresh)}${config.id}/`, { enabled: false })
    const logs = await logsOf(fresh, config.id, '', 3)
    expect(logs.results.map((e) => e.message)).toEqual(['Plugin disabled.', 'Plugin enabled.', 'Config created (disabled).'])
    expect(Object.keys(logs.results[0] ?? {}).sort()).toEqual([
      'id',
      'instance_id',
      'message',
      'plugin_config_id',
      'plugin_id',
      'source',
      'team_id',
      'timestamp',
      'type',
    ])
    expect(logs.results[0]).toMatchObject({
      team_id: fresh.projectId,
      plugin_id: 1,
      plugin_config_id: config.id,
      source: 'SYSTEM',
      type: 'INFO',
    })

    expect((await logsOf(fresh, config.id, '?search=ENABLED')).results.map((e) => e.message)).toEqual(['Plugin enabled.'])
    const none = await call(fresh, 'GET', `${configsPath(fresh)}${config.id}/logs/?type_filter=ERROR&type_filter=WARN`)
    expect(none.body).toMatchObject({ count: 0, results: [] })
    const later = await call(
      fresh,
      'GET',
      `${configsPath(fresh)}${config.id}/logs/?after=${encodeURIComponent(logs.results[1]?.timestamp ?? '')}`,
    )
    expect(later.body.results.map((e: { message: string }) => e.message)).toEqual(['Plugin disabled.'])
    const page = await call(fresh, 'GET', `${configsPath(fresh)}${config.id}/logs/?limit=1`)
    expect(page.body.next).toContain('offset=1')

    const badLimit = await call(fresh, 'GET', `${configsPath(fresh)}${config.id}/logs/?limit=abc`)
    expect(badLimit.status).toBe(400)
    expect(badLimit.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'A valid integer is required.',
      attr: 'limit',
    })

    const badType = await call(fresh, 'GET', `${configsPath(fresh)}${config.id}/logs/?type_filter=LOUD`)
    expect(badType.status).toBe(400)
    expect(badType.body).toMatchObject({ attr: 'type_filter' })
    expect((await call(fresh, 'GET', `${configsPath(fresh)}999999/logs/`)).status).toBe(404)
  })

  it("enqueues one of the plugin's jobs after checking its type and payload", async () => {
    const fresh = await service.account()
    const { body: config } = await call(fresh, 'POST', configsPath(fresh), { plugin: WEBHOOK, config: { url: 'https://h.example.com' } })
    const jobPath = `${configsPath(fresh)}${config.id}/job/`
    const missingType = await call(fresh, 'POST', jobPath, { job: { payload: {} } })
    expect(missingType.status).toBe(400)
    expect(missingType.body).toMatchObject({ type: 'validation_error', detail: 'The job type must be specified!' })
    const unknown = await call(fresh, 'POST', jobPath, { job: { type: 'Make coffee' } })
    expect(unknown.status).toBe(400)
    expect(unknown.body).toMatchObject({ attr: 'job__type' })
    const noPayload = await call(fresh, 'POST', jobPath, { job: { type: 'Export historical events', payload: { dateFrom: '2024-01-01' } } })
    expect(noPayload.body).toMatchObject({ attr: 'job__payload__dateTo' })

    const ok = await call(fresh, 'POST', jobPath, {
      job: { type: 'Export historical events', payload: { dateFrom: '2024-01-01', dateTo: '2024-02-01' } },
    })
    expect(ok.status).toBe(200)
    // The job runs once on a server; this config is disabled, so the run skips it and says so.
    const [job] = await waitFor(
      async () => {
        const rows = await service.app.deps.sql<{ type: string; payload: Record<string, unknown>; status: string }[]>`
          select type, payload, status from plugin_jobs where plugin_config_id = ${config.id}`
        return rows[0]?.status === 'skipped' ? rows : undefined
      },
      { what: 'the job run' },
    )
    expect(job).toEqual({
      type: 'Export historical events',
      payload: { dateFrom: '2024-01-01', dateTo: '2024-02-01', $operation: 'start' },
      status: 'skipped',
    })
    const logs = await logsOf(fresh, config.id, '?search=job', 2)
    expect(logs.results.map((e) => e.message)).toEqual([
      'Job "Export historical events" skipped: the plugin is disabled.',
      'Job "Export historical events" enqueued (start).',
    ])
  })

  it('serves the frontend module of a plugin config as JavaScript', async () => {
    const fresh = await service.account()
    const { body: config } = await call(fresh, 'POST', configsPath(fresh), { plugin: 1 })
    const res = await call(fresh, 'GET', `${configsPath(fresh)}${config.id}/frontend/`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=UTF-8')
    expect(res.text).toContain('export function getFrontendApp')
    expect(res.text).toContain('"no_frontend": true')
  })

  it('rearranges the enabled configs by config id and answers all of them in their new order', async () => {
    const fresh = await service.account()
    const a = (await call(fresh, 'POST', configsPath(fresh), { plugin: 1, enabled: true, order: 1 })).body
    const b = (await call(fresh, 'POST', configsPath(fresh), { plugin: 3, enabled: true, order: 2 })).body
    const c = (await call(fresh, 'POST', configsPath(fresh), { plugin: 4, enabled: false, order: 3 })).body
    const res = await call(fresh, 'PATCH', `${configsPath(fresh)}rearrange/`, { orders: { [a.id]: 5, [b.id]: 4, [c.id]: 0 } })
    expect(res.status).toBe(200)
    expect(res.body.map((x: { id: number; order: number }) => [x.id, x.order])).toEqual([
      [b.id, 4],
      [a.id, 5],
    ])
    expect((await call(fresh, 'GET', `${configsPath(fresh)}${c.id}/`)).body.order).toBe(3)
    const bad = await call(fresh, 'PATCH', `${configsPath(fresh)}rearrange/`, { orders: { abc: 1 } })
    expect(bad.status).toBe(400)
    expect((await call(fresh, 'GET', `${configsPath(fresh)}rearrange/`)).status).toBe(405)
  })
})
