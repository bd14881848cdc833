import { problems } from '@burrow/contracts'

/**
 * Decoding of lz-string's base64 form (`compression=lz64`, sent by older posthog-js), with a
 * bound on the output. lz-string itself expands without limit: a few kilobytes can grow to
 * gigabytes (the output grows quadratically with the input), which would take the process
 * down. This decoder follows the same format and stops once the output passes `maxChars`.
 *
 * The format: a bit stream (6 bits per base64 character, least significant bit first within
 * each value) of codes whose width starts at 2 bits and grows as the dictionary does. Code 0
 * introduces an 8-bit character, 1 a 16-bit character, 2 ends the stream; any other code
 * names a dictionary entry. Each step adds (previous entry + first character of this one).
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/='
const VALUE_OF = new Map([...ALPHABET].map((char, i) => [char, i]))

class BitReader {
  private index = 0
  private value = 0
  private mask = 0

  constructor(private readonly input: string) {}

  /** Reads `width` bits, least significant first; undefined past the end of the input. */
  read(width: number): number | undefined {
    let bits = 0
    for (let power = 1, n = 0; n < width; n++, power *= 2) {
      if (this.mask === 0) {
        if (this.index >= this.input.length) return undefined
        const value = VALUE_OF.get(this.input[this.index++]!)
        if (value === undefined) return undefined
        this.value = value
        this.mask = 32
      }
      if (this.value & this.mask) bits += power
      this.mask >>= 1
    }
    return bits
  }
}

/** The text, or null when the input is not a valid lz64 stream. Throws 413 past `maxChars`. */
export function decompressLz64(input: string, maxChars: number): string | null {
  const reader = new BitReader(input)
  const dictionary: string[] = ['', '', '']
  let width = 2
  let growIn = 4
  const parts: string[] = []
  let total = 0
  let previous: string | undefined

  const literal = (code: number): string | null => {
    const char = reader.read(code === 0 ? 8 : 16)
    return char === undefined ? null : String.fromCharCode(char)
  }

  for (;;) {
    const code = reader.read(width)
    if (code === undefined) return null
    if (code === 2) return parts.join('')
    let entry: string
    if (code === 0 || code === 1) {
      const char = literal(code)
      if (char === null) return null
      dictionary.push(char)
      entry = char
      // The first entry grows the dictionary without a pair; later literals count as a step.
      if (previous !== undefined && --growIn === 0) {
        growIn = 2 ** width
        width++
      }
    } else if (code < dictionary.length && previous !== undefined) {
      entry = dictionary[code]!
    } else if (code === dictionary.length && previous !== undefined) {
      entry = previous + previous[0]
    } else {
      return null
    }
    total += entry.length
    if (total > maxChars) throw problems.tooLarge('The decompressed payload')
    parts.push(entry)
    if (previous !== undefined) dictionary.push(previous + entry[0])
    if (previous === undefined) width = 3
    else if (--growIn === 0) {
      growIn = 2 ** width
      width++
    }
    previous = entry
  }
}
