import { describe, expect, it } from 'vitest'
import { concatInSlices } from './eventLoop'

const parts = (sizes: number[]) => sizes.map((n, i) => Buffer.alloc(n, 97 + (i % 26)))

describe('concatInSlices', () => {
  it('joins the parts in order, as Buffer.concat does', async () => {
    for (const sizes of [[], [0], [5], [3, 0, 7, 1], [40, 25, 60, 1, 99]]) {
      const input = parts(sizes)
      expect((await concatInSlices(input, 32)).equals(Buffer.concat(input))).toBe(true)
    }
  })

  it('lets other callbacks run while joining more than a slice', async () => {
    const ran: string[] = []
    setImmediate(() => ran.push('other callback'))
    const joining = concatInSlices(parts([16, 16, 16, 16]), 16).then(() => ran.push('joined'))
    await joining
    expect(ran).toEqual(['other callback', 'joined'])
  })
})
