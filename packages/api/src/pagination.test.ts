import { describe, expect, it } from 'vitest'
import { toCursorEnvelope } from './pagination'

describe('the cursor envelope', () => {
  it('links to the same request with the cursor replaced, and has no count', () => {
    const url = new URL('http://burrow.test/api/projects/1/groups/?group_type_index=0&cursor=old&search=a%20b')
    expect(toCursorEnvelope({ next_cursor: 'bj0x', previous_cursor: null, results: [1] }, url)).toEqual({
      next: 'http://burrow.test/api/projects/1/groups/?group_type_index=0&cursor=bj0x&search=a+b',
      previous: null,
      results: [1],
    })
  })
})
