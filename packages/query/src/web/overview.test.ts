import { describe, expect, it } from 'vitest'
import { overviewItem, roundHalfEven } from './overview'

describe('the overview tiles', () => {
  it('round the change as Python rounds: halves to the even neighbour', () => {
    expect([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4, 2.6].map(roundHalfEven)).toEqual([0, 2, 2, 0, -2, -2, 2, 3])
  })

  it('answer percentages from fractions, and no change without a previous value or from 0', () => {
    expect(overviewItem('bounce rate', 'percentage', 0.5, 0.25, true)).toEqual({
      key: 'bounce rate',
      kind: 'percentage',
      isIncreaseBad: true,
      value: 50,
      previous: 25,
      changeFromPreviousPct: 100,
    })
    expect(overviewItem('visitors', 'unit', 3, 0).changeFromPreviousPct).toBeNull()
    expect(overviewItem('visitors', 'unit', 3, null).changeFromPreviousPct).toBeNull()
    expect(overviewItem('session duration', 'duration_s', null, 10)).toMatchObject({
      value: null,
      previous: 10,
      changeFromPreviousPct: null,
    })
  })
})
