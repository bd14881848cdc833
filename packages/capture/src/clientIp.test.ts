import { describe, expect, it } from 'vitest'
import { clientAddress, proxyList } from './clientIp'

describe('the client’s address', () => {
  it('is the first X-Forwarded-For entry when every peer is trusted', () => {
    expect(clientAddress('203.0.113.9, 10.0.0.1', '10.0.0.2', 'any')).toBe('203.0.113.9')
    expect(clientAddress('2001:db8::1', '10.0.0.2', 'any')).toBe('2001:db8::1')
  })

  it('drops the port an entry carries', () => {
    expect(clientAddress('203.0.113.9:51234', '10.0.0.2', 'any')).toBe('203.0.113.9')
    expect(clientAddress('[2001:db8::1]:443, 10.0.0.1', '10.0.0.2', 'any')).toBe('2001:db8::1')
  })

  it('never takes an entry that is not an address: the last address vouched for stays', () => {
    expect(clientAddress('unknown', '10.0.0.2', 'any')).toBe('10.0.0.2')
    expect(clientAddress('<script>', '10.0.0.2', 'any')).toBe('10.0.0.2')
    expect(clientAddress('', '10.0.0.2', 'any')).toBe('10.0.0.2')
    expect(clientAddress('<script>, 203.0.113.9', '10.0.0.2', 'any')).toBe('203.0.113.9')
  })

  it('is the peer when no proxy is trusted, whatever the header says', () => {
    expect(clientAddress('203.0.113.9', '10.0.0.2', [])).toBe('10.0.0.2')
    expect(clientAddress('203.0.113.9', '198.51.100.7', ['10.0.0.0/8'])).toBe('198.51.100.7')
  })

  it('reads the header from its end only through the configured proxies, so a client cannot name its own address', () => {
    const proxies = ['10.0.0.0/8', '2001:db8:ffff::1']
    // The client put 1.2.3.4 in the header itself; the proxy appended the address it saw.
    expect(clientAddress('1.2.3.4, 203.0.113.9', '10.0.0.2', proxies)).toBe('203.0.113.9')
    // Two proxies in a row, each trusted.
    expect(clientAddress('203.0.113.9, 10.1.1.1', '10.0.0.2', proxies)).toBe('203.0.113.9')
    expect(clientAddress('203.0.113.9', '2001:db8:ffff::1', proxies)).toBe('203.0.113.9')
    expect(clientAddress('203.0.113.9', '::ffff:10.0.0.2', proxies)).toBe('203.0.113.9')
  })
})

describe('the list of proxies', () => {
  it('takes addresses and CIDR ranges of both families and refuses anything else', () => {
    expect(proxyList(['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8']).check('10.9.9.9')).toBe(true)
    for (const bad of ['localhost', '10.0.0.0/33', '10.0.0.0/x', '::/129', '']) expect(() => proxyList([bad])).toThrow()
  })
})
