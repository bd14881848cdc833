import type { TestAccount } from '@burrow/testing'
import { describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
})

async function call(path: string, init: { method?: string; body?: unknown } = {}, owner = account): Promise<{ status: number; body: any }> {
  const res = await service.api(owner, `/api/projects/${owner.projectId}${path}`, {
    method: init.method ?? 'GET',
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

const create = (body: Record<string, unknown>, owner = account) => call('/actions/', { method: 'POST', body }, owner)
const patch = (id: number, body: Record<string, unknown>, owner = account) => call(`/actions/${id}/`, { method: 'PATCH', body }, owner)

/** A step as PostHog answers one that filters on nothing. */
const EMPTY_STEP = {
  event: null,
  properties: null,
  selector: null,
  tag_name: null,
  text: null,
  text_matching: null,
  href: null,
  href_matching: null,
  url: null,
  url_matching: 'contains',
}

describe('actions', () => {
  it("creates an action and answers it with PostHog's fields, every step field filled in", async () => {
    const res = await create({
      name: 'user signed up',
      description: 'Test description',
      steps: [{ text: 'sign up', selector: 'div > button', url: '/signup', isNew: 'asdf', id: 7 }],
      creation_context: 'onboarding',
      _create_in_folder: 'Special Folder/Actions',
    })
    expect(res.status).toBe(201)
    const me = (await (await service.api(account, '/api/users/@me/')).json()) as { email: string; uuid: string }
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'user signed up',
      description: 'Test description',
      tags: [],
      post_to_slack: false,
      slack_message_format: '',
      steps: [{ ...EMPTY_STEP, selector: 'div > button', text: 'sign up', url: '/signup' }],
      created_at: expect.any(String),
      created_by: expect.objectContaining({ id: account.userId, email: me.email, uuid: me.uuid }),
      deleted: false,
      is_calculating: false,
      last_calculated_at: expect.any(String),
      team_id: account.projectId,
      is_action: true,
      bytecode_error: null,
      pinned_at: null,
      creation_context: null,
      user_access_level: 'manager',
    })
    expect(Date.now() - Date.parse(res.body.created_at)).toBeLessThan(60_000)
    expect((await call(`/actions/${res.body.id}/`)).body).toEqual(res.body)
  })

  it('keeps the spaces around an event name and trims a selector and a URL, as PostHog does', async () => {
    const res = await create({
      name: 'spaced',
      steps: [{ event: 'test_event ', selector: ' a.cta ', url: ' /pricing ', url_matching: null }],
    })
    expect(res.status).toBe(201)
    expect(res.body.steps).toEqual([{ ...EMPTY_STEP, event: 'test_event ', selector: 'a.cta', url: '/pricing', url_matching: null }])
  })

  it('refuses a name a live action of the project has, with the id of that action, and frees it once that one is deleted', async () => {
    const first = await create({ name: 'Checkout' })
    const again = await create({ name: 'Checkout' })
    expect(again).toEqual({
      status: 400,
      body: {
        type: 'validation_error',
        code: 'unique',
        detail: `This project already has an action with this name, ID ${first.body.id}`,
        attr: 'name',
      },
    })
    const other = await service.account()
    expect((await create({ name: 'Checkout' }, other)).status).toBe(201)

    const renamed = await create({ name: 'Checkout 2' })
    expect((await patch(renamed.body.id, { name: 'Checkout' })).body).toMatchObject({ code: 'unique', attr: 'name' })

    expect((await patch(first.body.id, { deleted: true })).status).toBe(200)
    const reused = await create({ name: 'Checkout' })
    expect(reused.status).toBe(201)
    // Bringing the first back would make two live actions of one name.
    expect((await patch(first.body.id, { deleted: false })).body).toMatchObject({
      code: 'unique',
      detail: `This project already has an action with this name, ID ${reused.body.id}`,
    })
  })

  it('replaces the steps on update, ignoring what the answer carries that a client cannot set', async () => {
    const created = await create({ name: 'user signed up (update)', steps: [{ event: '$autocapture', text: 'sign me up!' }] })
    const res = await patch(created.body.id, {
      name: 'user signed up (update) 2',
      description: 'updated description',
      steps: [
        {
          event: '$autocapture',
          text: 'sign up NOW',
          selector: 'div > button',
          properties: [{ key: '$browser', value: 'Chrome' }],
          url: null,
        },
        { event: '$pageview', href: '/a-new-link', href_matching: 'exact' },
      ],
      created_by: { id: 1, distinct_id: 'someone', first_name: 'person', email: 'person@email.com' },
      team_id: 999_999,
      is_calculating: true,
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      name: 'user signed up (update) 2',
      description: 'updated description',
      team_id: account.projectId,
      is_calculating: false,
      created_by: { id: account.userId },
    })
    expect(res.body.steps).toEqual([
      {
        ...EMPTY_STEP,
        event: '$autocapture',
        properties: [{ key: '$browser', value: 'Chrome' }],
        selector: 'div > button',
        text: 'sign up NOW',
      },
      { ...EMPTY_STEP, event: '$pageview', href: '/a-new-link', href_matching: 'exact' },
    ])

    const untouched = await patch(created.body.id, { description: 'only this' })
    expect(untouched.body.steps).toHaveLength(2)
    const emptied = await patch(created.body.id, { steps: [] })
    expect(emptied.body.steps).toEqual([])

    const put = await call(`/actions/${created.body.id}/`, {
      method: 'PUT',
      body: { name: 'put name', tags: ['growth'], post_to_slack: true, slack_message_format: '[action.name] by [person]' },
    })
    expect(put.body).toMatchObject({
      name: 'put name',
      description: 'only this',
      tags: ['growth'],
      post_to_slack: true,
      slack_message_format: '[action.name] by [person]',
    })
  })

  it('pins an action at the time of the request, keeps the first pin, and unpins it with null', async () => {
    const created = await create({ name: 'pinned' })
    const before = Date.now()
    const pinned = await patch(created.body.id, { pinned_at: '2021-12-11T00:00:00Z' })
    expect(Date.parse(pinned.body.pinned_at)).toBeGreaterThanOrEqual(before - 1000)
    const again = await patch(created.body.id, { pinned_at: '2030-01-01T00:00:00Z' })
    expect(again.body.pinned_at).toBe(pinned.body.pinned_at)
    expect((await patch(created.body.id, { pinned_at: null })).body.pinned_at).toBeNull()
    expect((await patch(created.body.id, { pinned_at: 'yesterday' })).body).toMatchObject({ code: 'invalid_input', attr: 'pinned_at' })
  })

  it("refuses invalid fields with PostHog's error body naming the field", async () => {
    const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [{ name: '   ' }, { code: 'blank', attr: 'name', detail: 'This field may not be blank.' }],
      [{ name: 'x'.repeat(401) }, { code: 'max_length', attr: 'name' }],
      [
        { name: 'bad choice', steps: [{ url: '/a', url_matching: 'fuzzy' }] },
        { code: 'invalid_choice', attr: 'steps__0__url_matching' },
      ],
      [
        { name: 'blank event', steps: [{ event: '' }] },
        { code: 'blank', attr: 'steps__0__event' },
      ],
      [
        { name: 'step not a dict', steps: ['$pageview'] },
        { attr: 'steps__0', detail: 'Invalid data. Expected a dictionary, but got str.' },
      ],
      [
        { name: 'steps not a list', steps: { event: '$pageview' } },
        { code: 'not_a_list', attr: 'steps' },
      ],
      [
        { name: 'too many steps', steps: Array.from({ length: 51 }, () => ({ event: '$pageview' })) },
        { code: 'max_length', attr: 'steps' },
      ],
      [
        { name: 'long url', steps: [{ url: 'x'.repeat(5000) }] },
        { code: 'max_length', attr: 'steps__0__url' },
      ],
      [
        { name: 'properties', steps: [{ properties: { key: 'a' } }] },
        { code: 'not_a_list', attr: 'steps__0__properties' },
      ],
      [
        { name: 'slack', slack_message_format: 'x'.repeat(1201) },
        { code: 'max_length', attr: 'slack_message_format' },
      ],
    ]
    for (const [body, problem] of cases) {
      const res = await create(body)
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400)
      expect(res.body).toMatchObject({ type: 'validation_error', ...problem })
    }
    const list = await call('/actions/?search=choice')
    expect(list.body.results).toEqual([])
  })

  it('soft-deletes with PATCH deleted: true, which takes the action off the list but not off its own address; DELETE is 405', async () => {
    const owner = await service.account()
    const kept = await create({ name: 'kept' }, owner)
    const gone = await create({ name: 'gone', steps: [{ event: '$pageview' }] }, owner)
    const deletion = await call(`/actions/${gone.body.id}/`, { method: 'DELETE' }, owner)
    expect(deletion).toEqual({ status: 405, body: undefined })

    expect((await patch(gone.body.id, { deleted: true }, owner)).body.deleted).toBe(true)
    const list = await call('/actions/', {}, owner)
    expect(list.body).toMatchObject({ count: 1, next: null, previous: null })
    expect(list.body.results.map((a: { id: number }) => a.id)).toEqual([kept.body.id])
    const retrieved = await call(`/actions/${gone.body.id}/`, {}, owner)
    expect(retrieved.body).toMatchObject({ deleted: true, steps: [{ event: '$pageview' }] })

    await patch(gone.body.id, { deleted: false }, owner)
    expect((await call('/actions/', {}, owner)).body.count).toBe(2)
  })

  it('lists the most recent first, pages with limit and offset, and searches names and descriptions', async () => {
    const owner = await service.account()
    for (const name of ['Signed up', 'Paid', 'Churned']) await create({ name, description: `when a user ${name.toLowerCase()}` }, owner)
    const first = await call('/actions/?limit=2', {}, owner)
    expect(first.body.count).toBe(3)
    expect(first.body.results.map((a: { name: string }) => a.name)).toEqual(['Churned', 'Paid'])
    expect(first.body.next).toContain('offset=2')
    const second = await call('/actions/?limit=2&offset=2', {}, owner)
    expect(second.body.results.map((a: { name: string }) => a.name)).toEqual(['Signed up'])
    const found = await call('/actions/?search=user%20pai', {}, owner)
    expect(found.body.results.map((a: { name: string }) => a.name)).toEqual(['Paid'])
  })

  it("answers 404 for another project's action, to read and to change", async () => {
    const other = await service.account()
    const theirs = await create({ name: 'Theirs' }, other)
    expect((await call(`/actions/${theirs.body.id}/`)).status).toBe(404)
    expect((await patch(theirs.body.id, { name: 'Mine' })).status).toBe(404)
    expect((await call('/actions/not-an-id/')).status).toBe(404)
    expect((await call(`/actions/${theirs.body.id}/`, {}, other)).body.name).toBe('Theirs')
  })

  it('holds keys to the action scope: read lists and retrieves, write is needed to change', async () => {
    const owner = await service.account()
    const created = await create({ name: 'scoped' }, owner)
    const keyOf = async (scopes: string[]) => {
      const res = await service.api(owner, '/api/personal_api_keys/', {
        method: 'POST',
        body: JSON.stringify({ label: scopes[0], scopes }),
      })
      return ((await res.json()) as { value: string }).value
    }
    const withKey = (key: string, path: string, init: RequestInit = {}) =>
      fetch(`${service.baseUrl}/api/projects/${owner.projectId}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      })
    const reader = await keyOf(['action:read'])
    expect((await withKey(reader, '/actions/')).status).toBe(200)
    expect((await withKey(reader, `/actions/${created.body.id}/`)).status).toBe(200)
    const refused = await withKey(reader, '/actions/', { method: 'POST', body: JSON.stringify({ name: 'nope' }) })
    expect(refused.status).toBe(403)
    expect(await refused.json()).toEqual({
      type: 'authentication_error',
      code: 'permission_denied',
      detail: "API key missing required scope 'action:write'",
      attr: null,
    })
    expect((await withKey(reader, `/actions/${created.body.id}/`, { method: 'PATCH', body: '{"deleted":true}' })).status).toBe(403)
    const other = await keyOf(['insight:read'])
    expect((await withKey(other, '/actions/')).status).toBe(403)
    const writer = await keyOf(['action:write'])
    expect((await withKey(writer, '/actions/', { method: 'POST', body: JSON.stringify({ name: 'by writer' }) })).status).toBe(201)
  })
})
