import { describe, expect, it } from 'vitest'
import { decodeGroupCursor, encodeGroupCursor } from './groupCursor'

describe('the groups list cursor', () => {
  it('comes back as the position it was made from, whatever the key holds', () => {
    for (const position of [
      { createdAtMicros: '1767323045123456', groupKey: 'acme', reverse: false },
      { createdAtMicros: '-1', groupKey: 'a&k=b=c é', reverse: true },
    ]) {
      expect(decodeGroupCursor(encodeGroupCursor(position))).toEqual(position)
    }
  })

  it("is DRF's 404 Invalid cursor when it is not one", () => {
    for (const cursor of ['%%%', Buffer.from('k=x').toString('base64'), Buffer.from('p=12.5&k=x').toString('base64')]) {
      expect(() => decodeGroupCursor(cursor), cursor).toThrow('Invalid cursor')
    }
  })
})
