import { describe, expect, it } from 'vitest'
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, pageQuerySchema, pageSchema } from './pagination'
import { personSchema } from './persons'

const page = (query: Record<string, unknown>) => pageQuerySchema.parse(query)

describe('limit and offset of a list', () => {
  it('default to the first page of 100 when absent', () => {
    expect(page({})).toEqual({ limit: DEFAULT_PAGE_LIMIT, offset: 0 })
    expect(DEFAULT_PAGE_LIMIT).toBe(100)
  })

  it('are read from query string text', () => {
    expect(page({ limit: '20', offset: '40' })).toEqual({ limit: 20, offset: 40 })
    expect(page({ limit: 7, offset: 3 })).toEqual({ limit: 7, offset: 3 })
  })

  it('never refuse a request: a limit that is not a positive number means the default', () => {
    for (const limit of ['abc', '', '0', '-5', 0, null]) expect(page({ limit }).limit).toBe(DEFAULT_PAGE_LIMIT)
  })

  it('cap the limit at 1000', () => {
    expect(page({ limit: '5000' }).limit).toBe(MAX_PAGE_LIMIT)
    expect(MAX_PAGE_LIMIT).toBe(1000)
  })

  it('read a bad or negative offset as 0, and refuse one past 2^32 - 1 rather than let it wrap round', () => {
    for (const offset of ['abc', '-5', '', null]) expect(page({ offset }).offset).toBe(0)
    expect(page({ offset: String(2 ** 32 - 1) }).offset).toBe(2 ** 32 - 1)
    for (const offset of [String(2 ** 32), '99999999999999999999']) {
      const result = pageQuerySchema.safeParse({ offset })
      expect(result.success).toBe(false)
      expect(result.error?.issues[0]).toMatchObject({ code: 'too_big', path: ['offset'], maximum: 2 ** 32 - 1 })
    }
  })

  it('drop the fraction of a decimal', () => {
    expect(page({ limit: '12.9', offset: 3.7 })).toEqual({ limit: 12, offset: 3 })
  })
})

describe('a page of results', () => {
  it('carries count, limit, offset and items of the given schema', () => {
    const schema = pageSchema(personSchema)
    expect(schema.safeParse({ count: 0, limit: 100, offset: 0, results: [] }).success).toBe(true)
    const refused = schema.safeParse({ count: 1, limit: 100, offset: 0, results: [{ id: 1 }] })
    expect(refused.success).toBe(false)
    expect(refused.error?.issues[0]?.path).toEqual(['results', 0, 'uuid'])
  })
})
