import type { PersonIntent } from '@burrow/spool'

/** How an encoded row's properties start; string values escape their quotes, so this is the key. */
const PROPERTIES_FIELD = Buffer.from('"properties":{')

/**
 * The rows of `body` with `$group_<index>` = key written at the start of the properties of each
 * row whose intent names groups of known types; `body` itself when no row changes. Rows are
 * spliced as bytes, not parsed: the properties of an encoded row are a JSON object (see
 * encodeEventRow), and the keys the intent carries are JSON already.
 */
export function withGroupColumns(body: Buffer, intents: readonly PersonIntent[], mapping: ReadonlyMap<string, number>): Buffer {
  const pieces: Buffer[] = []
  let copiedTo = 0
  let start = 0
  for (const intent of intents) {
    const end = body.indexOf(0x0a, start)
    if (end < 0) break
    const columns = typeof intent === 'string' || !intent.groups ? '' : groupColumnsText(intent.groups, mapping)
    if (columns !== '') {
      const at = body.indexOf(PROPERTIES_FIELD, start)
      if (at >= 0 && at < end) {
        const insertAt = at + PROPERTIES_FIELD.length
        pieces.push(body.subarray(copiedTo, insertAt), Buffer.from(body[insertAt] === 0x7d ? columns : `${columns},`))
        copiedTo = insertAt
      }
    }
    start = end + 1
  }
  if (copiedTo === 0) return body
  pieces.push(body.subarray(copiedTo))
  return Buffer.concat(pieces)
}

/** `"$group_0":"acme","$group_1":42`, by index, for the types that have one. */
function groupColumnsText(groups: Record<string, string>, mapping: ReadonlyMap<string, number>): string {
  const columns: Array<[number, string]> = []
  for (const [type, key] of Object.entries(groups)) {
    const index = mapping.get(type)
    if (index !== undefined) columns.push([index, key])
  }
  return columns
    .sort((a, b) => a[0] - b[0])
    .map(([index, key]) => `"$group_${index}":${key}`)
    .join(',')
}
