import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { checkLiteralHost, isPrivateAddress, PrivateAddressError } from './publicAddresses'
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
  ])('refuses %s', (address) => expect(isPrivateAddress(address)).toBe(true))
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '172.32.0.1'])('allows %s', (address) =>
    expect(isPrivateAddress(address)).toBe(false),
  )
  it('refuses a URL written with a private address, IPv6 in brackets included, and leaves names to the resolver', () => {
    expect(() => checkLiteralHost('http://169.254.169.254/latest/meta-data/')).toThrow(PrivateAddressError)
    expect(() => checkLiteralHost('http://[::1]:8080/')).toThrow(PrivateAddressError)
    expect(() => checkLiteralHost('https://hooks.example.com/x')).not.toThrow()
    expect(() => checkLiteralHost('https://8.8.8.8/x')).not.toThrow()
  })
})
