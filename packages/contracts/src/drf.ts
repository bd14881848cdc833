import { z } from 'zod'

/**
 * Fields that take what Django REST Framework's fields take: a value DRF coerces is coerced
 * (a BooleanField reads `"true"` and `1`, a CharField `5`), anything else is left as it came,
 * so that the type check refuses it with DRF's message.
 */

const TRUE_VALUES = new Set<unknown>(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1', 1, true])
const FALSE_VALUES = new Set<unknown>(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0', 0, false])

function toBoolean(value: unknown): unknown {
  if (TRUE_VALUES.has(value)) return true
  if (FALSE_VALUES.has(value)) return false
  return value
}

/** Numbers become their text, as Python's `str()` writes them; booleans and containers stay refused. */
function toText(value: unknown): unknown {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : value
}

/** Integral numbers and their text (`"5"`, `"5.0"`); DRF strips a trailing `.0` before `int()`. */
function toInteger(value: unknown): unknown {
  if (typeof value !== 'string') return value
  const text = value.trim().replace(/\.0*$/, '')
  if (!/^[-+]?\d+$/.test(text) || text.length > 1000) return value
  return Number(text)
}

function toNumber(value: unknown): unknown {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 1000) return value
  const n = Number(value.trim())
  return Number.isFinite(n) ? n : value
}

export const drfBoolean = () => z.preprocess(toBoolean, z.boolean())

/** A text field; pass the string schema with its bounds. */
export const drfString = <T extends z.ZodType>(schema: T) => z.preprocess(toText, schema)

/** An integer field; pass the number schema with its bounds. Text that is no integer gets DRF's integer wording. */
export const drfInteger = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value, ctx) => {
    const coerced = toInteger(value)
    if (typeof coerced === 'string') {
      ctx.issues.push({ code: 'custom', message: 'A valid integer is required.', input: value })
      return z.NEVER
    }
    return coerced
  }, schema)

/** A float field; pass the number schema with its bounds. */
export const drfNumber = <T extends z.ZodType>(schema: T) => z.preprocess(toNumber, schema)

/** A form field's JSON (multipart uploads send text), or the JSON itself. */
export const formJson = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => {
    if (typeof v !== 'string') return v
    try {
      return JSON.parse(v) as unknown
    } catch {
      return v
    }
  }, schema)
