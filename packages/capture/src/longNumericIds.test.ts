import { describe, expect, it } from 'vitest'
import { keepLongNumericDistinctIds } from './longNumericIds'

const parsed = (text: string) => JSON.parse(keepLongNumericDistinctIds(text)) as Record<string, unknown>

describe('long numeric distinct ids', () => {
  it('keep the exact digits of a 20-digit distinct id', () => {
    expect(parsed('{"event":"e","distinct_id":12345678901234567891}').distinct_id).toBe('12345678901234567891')
    expect(parsed('{"event":"e","$distinct_id" : 18446744073709551615 }').$distinct_id).toBe('18446744073709551615')
    expect(parsed('[{"distinct_id":98765432109876543210,"event":"a"},{"distinct_id":12345678901234567891}]')).toEqual([
      { distinct_id: '98765432109876543210', event: 'a' },
      { distinct_id: '12345678901234567891' },
    ])
  })

  it('leave numbers JSON reads exactly, and other text, as they are', () => {
    const text = '{"distinct_id":1234567890123,"properties":{"x":"distinct_id\\":12345678901234567891"},"n":12345678901234567891}'
    expect(keepLongNumericDistinctIds(text)).toBe(text)
    expect(keepLongNumericDistinctIds('{"distinct_id":12345678901234567891.5}')).toBe('{"distinct_id":12345678901234567891.5}')
  })
})
