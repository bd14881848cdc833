import { createTestAccount, removeTestDirs, type TestAccount } from '@burrow/testing'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startLoggedService, type LoggedService } from './loggedService'

// Every credential a run handles, at the most talkative log level, and none of them in the log.

let service: LoggedService
let account: TestAccount
beforeAll(async () => {
  service = await startLoggedService({ LOG_LEVEL: 'debug' })
  account = await createTestAccount(service.app.deps.sql)
})
afterAll(async () => {
  await service.app.stop()
  removeTestDirs()
})

it('never writes a personal API key, a project token, a webhook secret or its headers to the log', async () => {
  const webhookSecret = 'whsec-do-not-log-4f1b9c'
  const headerSecret = 'Bearer hdr-do-not-log-77aa21'
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${service.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${account.personalApiKey}`, 'content-type': 'application/json', ...init.headers },
    })
  const created = await api(`/api/projects/${account.projectId}/plugin_configs/`, {
    method: 'POST',
    body: JSON.stringify({
      plugin: 5,
      enabled: false,
      config: { url: 'https://hooks.example.com/x', secret: webhookSecret, headers: { authorization: headerSecret } },
    }),
  })
  expect(created.status).toBe(201)
  // Keys in every place a client puts them, valid and not: header, query, body, capture.
  await fetch(`${service.baseUrl}/api/projects/${account.projectId}/events/?personal_api_key=${account.personalApiKey}`)
  await fetch(`${service.baseUrl}/api/users/@me/`, { headers: { authorization: 'Bearer phx_wrong_key_do_not_log_0001' } })
  await fetch(`${service.baseUrl}/trpc/users.me`, { headers: { authorization: `Bearer ${account.personalApiKey}` } })
  for (const path of ['/capture/', '/decide/?v=3', `/capture/?api_key=${account.projectToken}`])
    await fetch(`${service.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: account.projectToken, event: 'e', distinct_id: 'd', properties: { token: account.personalApiKey } }),
    })
  await fetch(`${service.baseUrl}/capture/`, {
    method: 'POST',
    body: JSON.stringify({ api_key: 'phc_unknown_do_not_log_0002', event: 'e', distinct_id: 'd' }),
  })
  const log = service.log.lines.map((line) => JSON.stringify(line)).join('\n')
  expect(service.log.lines.length).toBeGreaterThan(5)
  for (const secret of [
    account.personalApiKey,
    webhookSecret,
    headerSecret,
    'phx_wrong_key_do_not_log_0001',
    'phc_unknown_do_not_log_0002',
  ])
    expect(log).not.toContain(secret)
})
