import { describe, expect, it } from 'vitest'
import { clientAddress } from './clientIp'

describe('the client’s address', () => {
  it('is the first X-Forwarded-For entry when proxies are trusted', () => {
    expect(clientAddress('203.0.113.9, 10.0.0.1', '10.0.0.2', true)).toBe('203.0.113.9')
    expect(clientAddress('2001:db8::1', '10.0.0.2', true)).toBe('2001:db8::1')
  })

  it('drops the port an entry carries', () => {
    expect(clientAddress('203.0.113.9:51234', '10.0.0.2', true)).toBe('203.0.113.9')
    expect(clientAddress('[2001:db8::1]:443, 10.0.0.1', '10.0.0.2', true)).toBe('2001:db8::1')
  })

  it('falls back to the peer when the entry is not an address', () => {
    expect(clientAddress('unknown', '10.0.0.2', true)).toBe('10.0.0.2')
    expect(clientAddress('<script>', '10.0.0.2', true)).toBe('10.0.0.2')
    expect(clientAddress('', '10.0.0.2', true)).toBe('10.0.0.2')
  })

  it('is the peer when proxies are not trusted', () => {
    expect(clientAddress('203.0.113.9', '10.0.0.2', false)).toBe('10.0.0.2')
  })
})
