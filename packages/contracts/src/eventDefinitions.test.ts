import { describe, expect, it } from 'vitest'
import { eventDefinitionUpdateSchema } from './eventDefinitions'

describe('updating an event definition', () => {
  it('stores a null description as empty text', () => {
    expect(eventDefinitionUpdateSchema.parse({ description: null })).toEqual({ description: '' })
  })

  it('trims tags and keeps each once, in the order given', () => {
    expect(eventDefinitionUpdateSchema.parse({ tags: [' billing ', 'growth', 'billing'] }).tags).toEqual(['billing', 'growth'])
  })

  it('refuses an empty tag at its index', () => {
    expect(eventDefinitionUpdateSchema.safeParse({ tags: ['billing', '  '] }).error?.issues[0]?.path).toEqual(['tags', 1])
  })

  it('ignores fields that are not writable, such as the name', () => {
    expect(eventDefinitionUpdateSchema.parse({ name: 'renamed', verified: true, volume_30_day: 5 })).toEqual({ verified: true })
  })
})
