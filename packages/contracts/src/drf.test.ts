import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { drfBoolean, drfInteger, drfNumber, drfString, formJson } from './drf'

const issue = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues[0]

describe("fields that take what DRF's fields take", () => {
  it('reads the texts and numbers a BooleanField reads, and nothing else', () => {
    for (const yes of [true, 'true', 'True', 'TRUE', 't', 'y', 'yes', 'on', '1', 1]) expect(drfBoolean().parse(yes)).toBe(true)
    for (const no of [false, 'false', 'False', 'f', 'n', 'no', 'off', '0', 0]) expect(drfBoolean().parse(no)).toBe(false)
    for (const other of ['maybe', 2, [], {}]) expect(drfBoolean().safeParse(other).success).toBe(false)
  })

  it('takes numbers as text, as a CharField does, but not booleans or containers', () => {
    expect(drfString(z.string()).parse(5)).toBe('5')
    expect(drfString(z.string()).parse(1.5)).toBe('1.5')
    for (const other of [true, [], {}]) expect(drfString(z.string()).safeParse(other).success).toBe(false)
  })

  it('takes integers and their text, a trailing .0 included, and words other text as DRF does', () => {
    expect(drfInteger(z.number().int()).parse('5')).toBe(5)
    expect(drfInteger(z.number().int()).parse(' 7.0 ')).toBe(7)
    expect(drfInteger(z.number().int()).parse(3)).toBe(3)
    expect(issue(drfInteger(z.number().int()), 'abc')).toMatchObject({ code: 'custom', message: 'A valid integer is required.' })
    expect(issue(drfInteger(z.number().int()), 1.5)?.code).toBe('invalid_type')
    expect(issue(drfInteger(z.number().int().nullable()), null)).toBeUndefined()
  })

  it('takes the text of a number where a number is due', () => {
    expect(drfNumber(z.number()).parse('2.5')).toBe(2.5)
    expect(drfNumber(z.number()).safeParse('two').success).toBe(false)
  })

  it('parses JSON text from a form field, leaving other text for the schema to refuse', () => {
    expect(formJson(z.record(z.string(), z.unknown())).parse('{"a":1}')).toEqual({ a: 1 })
    expect(formJson(z.record(z.string(), z.unknown())).safeParse('{nope').success).toBe(false)
  })
})
