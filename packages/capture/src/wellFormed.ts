/**
 * Lone UTF-16 surrogates, which JSON allows as escapes (`"\ud800"`) and lz64 can decompress to,
 * cannot be stored: ClickHouse refuses a JSON row holding one, and would refuse the row's dead
 * letter too. They become U+FFFD, as invalid UTF-8 bytes do when a body is decoded.
 */

import { mapJsonText } from '@burrow/core'

/** A surrogate written as an escape; a well-formed pair (as Python's ensure_ascii writes emoji) also matches. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/

/** Whether the value parsed from this JSON text may hold a lone surrogate (a cheap scan of the text). */
export function mayHoldLoneSurrogates(text: string): boolean {
  return SURROGATE_ESCAPE.test(text) || !text.isWellFormed()
}

/** A JSON value with every string and key well-formed. */
export function wellFormed(value: unknown): unknown {
  return mapJsonText(value, (text) => text.toWellFormed())
}
