import { describe, expect, it } from 'vitest'
import { layoutsInOrder, moveTile } from './tileLayout'

describe("a dashboard's arrangement", () => {
  it('moves one tile to another place, the others keeping their order', () => {
    expect(moveTile([1, 2, 3, 4], 0, 2)).toEqual([2, 3, 1, 4])
    expect(moveTile([1, 2, 3, 4], 3, 0)).toEqual([4, 1, 2, 3])
    expect(moveTile([1, 2, 3], 1, 1)).toEqual([1, 2, 3])
    expect(moveTile([1, 2, 3], 2, 3)).toEqual([1, 2, 3])
  })

  it("writes the order as sm places that PostHog's reading order (top to bottom, then left to right) gives back", () => {
    const tiles = layoutsInOrder([30, 10, 20])
    expect(tiles.map((t) => t.layouts.sm)).toEqual([
      { x: 0, y: 0, w: 6, h: 5 },
      { x: 6, y: 0, w: 6, h: 5 },
      { x: 0, y: 5, w: 6, h: 5 },
    ])
    const read = [...tiles].sort((a, b) => {
      const [pa, pb] = [a.layouts.sm, b.layouts.sm] as { x: number; y: number }[]
      return pa!.y - pb!.y || pa!.x - pb!.x
    })
    expect(read.map((t) => t.id)).toEqual([30, 10, 20])
  })
})
