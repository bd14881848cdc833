import { describe, expect, it } from 'vitest'
import { cookielessDistinctId, dailySessionId, isCookieless, rootDomain, visitDay, visitorHash } from './cookieless'

describe('cookieless hashing', () => {
  it('hashes the root domain, so that every subdomain and scheme of a site is one visitor (cases of PostHog)', () => {
    expect(rootDomain('www.google.co.uk')).toBe('google.co.uk')
    expect(rootDomain('https://app.posthog.com')).toBe('posthog.com')
    expect(rootDomain('example.com:8000')).toBe('example.com:8000')
    expect(rootDomain('localhost:8000')).toBe('127.0.0.1:8000')
    expect(rootDomain('http://192.168.0.1')).toBe('192.168.0.1')
    expect(rootDomain('::1')).toBe('[::1]')
  })

  it('gives one visitor one id and one session a day, and another visitor others', () => {
    const salt = Buffer.alloc(16, 7)
    const a = visitorHash(salt, 1, '1.2.3.4', 'www.shop.com', 'Firefox')
    expect(visitorHash(salt, 1, '1.2.3.4', 'shop.com', 'Firefox')).toEqual(a)
    expect(visitorHash(salt, 1, '1.2.3.5', 'shop.com', 'Firefox')).not.toEqual(a)
    expect(visitorHash(salt, 2, '1.2.3.4', 'shop.com', 'Firefox')).not.toEqual(a)
    expect(visitorHash(Buffer.alloc(16, 8), 1, '1.2.3.4', 'shop.com', 'Firefox')).not.toEqual(a)
    expect(cookielessDistinctId(a)).toMatch(/^cookieless_[A-Za-z0-9+/]{22}$/)
    const day = visitDay(Date.parse('2024-03-10T23:30:00Z'), 'Europe/Berlin', 'UTC')
    expect(day).toEqual({ day: '2024-03-11', startMs: Date.parse('2024-03-10T23:00:00Z') })
    const session = dailySessionId(day.startMs, a)
    expect(session).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(parseInt(session.replaceAll('-', '').slice(0, 12), 16)).toBe(day.startMs)
  })

  it('reads the sentinel or the mode property, and an unknown timezone as the next one', () => {
    expect(isCookieless('$posthog_cookieless', {})).toBe(true)
    expect(isCookieless('user', { $cookieless_mode: true })).toBe(true)
    expect(isCookieless('user', { $cookieless_mode: false })).toBe(false)
    expect(visitDay(Date.parse('2024-03-10T23:30:00Z'), 'Mars/Olympus', 'America/New_York').day).toBe('2024-03-10')
  })
})
