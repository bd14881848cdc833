import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { catalogEntry, WEBHOOK_EXPORT } from '../catalog'
import { checkSecretsFollowHost, SECRET_FIELD_MASK } from '../config'
import { checkLiteralHost, embeddedIpv4, isPrivateAddress, PrivateAddressError } from './publicAddresses'
import { webhookRequest, type WebhookEvent } from './request'
import { parseRetryAfter, retryDelayMs, MAX_RETRY_DELAY_MS } from './retry'
import { requestHeaders } from './sender'

const event: WebhookEvent = {
  uuid: 'u-1',
  event: 'signup',
  distinct_id: 'd',
  properties: { plan: 'pro', n: 2 },
  timestamp: '2024-01-01T00:00:00.000Z',
  team_id: 7,
  person_id: null,
  elements_chain: '',
}

describe('webhookRequest', () => {
  it('sends the event itself by default, signed with the secret', () => {
    const req = webhookRequest({ url: 'https://h.example.com/x', secret: 's' }, event)
    expect(JSON.parse(req.body)).toEqual(event)
    expect(req.method).toBe('POST')
    expect(req.headers['X-Burrow-Signature']).toBe(`sha256=${createHmac('sha256', 's').update(req.body).digest('hex')}`)
  })

  it('fills a template: whole placeholders keep their JSON type, inline ones become text', () => {
    const req = webhookRequest(
      {
        url: 'https://h.example.com/{{event.event}}',
        payload: '{"n":"{{event.properties.n}}","t":"{{event.distinct_id}}: {{event.properties}}"}',
      },
      event,
    )
    expect(JSON.parse(req.body)).toEqual({ n: 2, t: 'd: {"plan":"pro","n":2}' })
    expect(req.url).toBe('https://h.example.com/signup')
    expect(req.headers).not.toHaveProperty('X-Burrow-Signature')
  })
})

describe('the headers sent', () => {
  it("are the config's over the defaults, one of each name whatever its case", () => {
    expect(requestHeaders({ 'content-type': 'application/json', 'Content-Type': 'text/plain', 'X-Burrow-Signature': 'sha256=ab' })).toEqual(
      {
        accept: '*/*',
        'user-agent': 'undici',
        'content-type': 'text/plain',
        'x-burrow-signature': 'sha256=ab',
      },
    )
    expect(requestHeaders({ 'User-Agent': 'mine' })['user-agent']).toBe('mine')
  })
})

describe('retries', () => {
  it('doubles the wait with jitter, up to an hour, and waits at least what Retry-After asks', () => {
    expect(retryDelayMs(1, 1000, undefined, () => 0.5)).toBe(1000)
    expect(retryDelayMs(3, 1000, undefined, () => 0.5)).toBe(4000)
    expect(retryDelayMs(3, 1000, undefined, () => 0)).toBe(2000)
    expect(retryDelayMs(40, 1000, undefined, () => 0.99)).toBe(MAX_RETRY_DELAY_MS)
    expect(retryDelayMs(1, 1000, 30_000, () => 0.5)).toBe(30_000)
  })

  it('reads Retry-After as seconds or as a date', () => {
    expect(parseRetryAfter('2')).toBe(2000)
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000)
    expect(parseRetryAfter('soon')).toBeUndefined()
    expect(parseRetryAfter(null)).toBeUndefined()
  })
})

describe('the addresses a webhook may reach', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::127.0.0.1', // IPv4-compatible
    '::a00:1',
    '::ffff:0:127.0.0.1', // IPv4-translated
    '::ffff:0:a9fe:a9fe',
    '2002:a9fe:a9fe::1', // 6to4 of 169.254.169.254
    '2002:c0a8:101::',
    '64:ff9b::10.0.0.1', // NAT64
    '64:ff9b::7f00:1',
    '64:ff9b:1::808:808', // NAT64 for local use
    '2001:0:808:808:0:ffff:f5ff:fffe', // Teredo, its client 10.0.0.1
    'fe80::1%eth0',
  ])('refuses %s', (address) => expect(isPrivateAddress(address)).toBe(true))
  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '172.32.0.1',
    '::808:808',
    '::ffff:0:8.8.8.8',
    '2002:808:808::1',
    '64:ff9b::8.8.8.8',
  ])('allows %s', (address) => expect(isPrivateAddress(address)).toBe(false))
  it.each([
    ['::10.1.2.3', ['10.1.2.3']],
    ['::ffff:0:a01:203', ['10.1.2.3']],
    ['2002:a01:203:1::5', ['10.1.2.3']],
    ['64:ff9b::a01:203', ['10.1.2.3']],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', ['65.54.227.120', '192.0.2.45']],
    ['2606:4700:4700::1111', []],
  ])('reads the IPv4 address %s carries', (address, expected) => expect(embeddedIpv4(address)).toEqual(expected))
  it('refuses a URL written with a private address, IPv6 in brackets included, and leaves names to the resolver', () => {
    expect(() => checkLiteralHost('http://169.254.169.254/latest/meta-data/')).toThrow(PrivateAddressError)
    expect(() => checkLiteralHost('http://[::1]:8080/')).toThrow(PrivateAddressError)
    expect(() => checkLiteralHost('http://[::127.0.0.1]/')).toThrow(PrivateAddressError)
    expect(() => checkLiteralHost('http://[2002:a9fe:a9fe::]/latest/meta-data/')).toThrow(PrivateAddressError)
    expect(() => checkLiteralHost('https://hooks.example.com/x')).not.toThrow()
    expect(() => checkLiteralHost('https://8.8.8.8/x')).not.toThrow()
  })
})

describe('moving a webhook to another host', () => {
  const schema = catalogEntry(WEBHOOK_EXPORT)!.configSchema
  const stored = { url: 'https://hooks.example.com/x', secret: 's3cret', headers: '{"authorization":"Bearer t"}' }
  const problem = (body: Record<string, unknown>) => expect.objectContaining({ status: 400, body: expect.objectContaining(body) })
  const update = (incoming: Record<string, unknown>) => () => checkSecretsFollowHost(schema, stored, incoming, 'url')

  it('refuses to keep a stored secret, naming the first field to give again', () => {
    for (const kept of [{}, { secret: SECRET_FIELD_MASK, headers: SECRET_FIELD_MASK }, { secret: null }]) {
      expect(update({ url: 'https://attacker.example.net/x', ...kept })).toThrow(
        problem({
          code: 'required',
          attr: 'config__secret',
          detail: '"Signing secret" must be given again when the URL\'s host changes.',
        }),
      )
    }
    expect(update({ url: 'https://attacker.example.net/x', secret: 'new' })).toThrow(
      problem({ attr: 'config__headers', detail: '"Extra headers" must be given again when the URL\'s host changes.' }),
    )
    // Another port is another server.
    expect(update({ url: 'https://hooks.example.com:8443/x', secret: 'new', headers: '{}' })).not.toThrow()
    expect(update({ url: 'https://hooks.example.com:8443/x' })).toThrow(problem({ attr: 'config__secret' }))
  })

  it('keeps the secrets for another path or scheme on the same host, and for a config without a URL', () => {
    expect(update({ url: 'http://HOOKS.example.com/other?q=1', secret: SECRET_FIELD_MASK })).not.toThrow()
    expect(update({ events: 'signup' })).not.toThrow()
    expect(() => checkSecretsFollowHost(schema, stored, undefined, 'url')).not.toThrow()
  })

  it('asks again after a config lost its URL, and not for secrets that were never set', () => {
    expect(() => checkSecretsFollowHost(schema, { secret: 's3cret' }, { url: 'https://new.example.com/' }, 'url')).toThrow(
      problem({ attr: 'config__secret' }),
    )
    expect(() =>
      checkSecretsFollowHost(schema, { url: 'https://hooks.example.com/' }, { url: 'https://new.example.com/' }, 'url'),
    ).not.toThrow()
  })
})
