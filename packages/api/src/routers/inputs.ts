import { z } from 'zod'

/** A path segment or query value that clients may send as a number or a string. */
export const textParam = z.union([z.string(), z.number()]).transform(String)

export const optionalText = textParam.optional()

/** A query parameter that may repeat (`?type_filter=INFO&type_filter=WARN`): always a list. */
export const repeatableText = z
  .union([textParam, z.array(textParam)])
  .optional()
  .transform((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]))

export const idParam = z.object({ id: textParam })
