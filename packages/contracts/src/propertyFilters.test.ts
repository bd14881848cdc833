import { describe, expect, it } from 'vitest'
import { PROPERTY_OPERATORS, propertyOperatorSchema } from './propertyFilters'

describe('property operators', () => {
  it("accepts each of PostHog's operators", () => {
    for (const operator of PROPERTY_OPERATORS) expect(propertyOperatorSchema.parse(operator)).toBe(operator)
  })

  it('refuses any other, quoting it in the message', () => {
    const refused = propertyOperatorSchema.safeParse('contains')
    expect(refused.error?.issues[0]?.message).toBe('"contains" is not a valid operator.')
    expect(propertyOperatorSchema.safeParse('EXACT').error?.issues[0]?.message).toBe('"EXACT" is not a valid operator.')
    expect(propertyOperatorSchema.safeParse(5).error?.issues[0]?.message).toBe('"5" is not a valid operator.')
  })
})
