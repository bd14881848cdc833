/**
 * Lets pending I/O callbacks run before continuing. Long loops of the consumer (parsing the
 * spool, person processing) call it between slices so that capture requests are answered in
 * between instead of waiting for the whole batch.
 */
export const yieldToEventLoop = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve))

/** Bytes copied between yields by concatInSlices: about a quarter of a millisecond here. */
const CONCAT_SLICE_BYTES = 1 << 20

/**
 * Buffer.concat that yields to the event loop every CONCAT_SLICE_BYTES. An insert's body of a
 * few MB, joined at once, held capture requests for 2–5 ms (the copy and the page faults of
 * the new memory).
 */
export async function concatInSlices(parts: readonly Buffer[], sliceBytes = CONCAT_SLICE_BYTES): Promise<Buffer> {
  let total = 0
  for (const part of parts) total += part.length
  if (total <= sliceBytes) return Buffer.concat(parts, total)
  const joined = Buffer.allocUnsafeSlow(total)
  let offset = 0
  let sinceYield = 0
  for (const part of parts) {
    part.copy(joined, offset)
    offset += part.length
    sinceYield += part.length
    if (sinceYield >= sliceBytes) {
      sinceYield = 0
      await yieldToEventLoop()
    }
  }
  return joined
}
