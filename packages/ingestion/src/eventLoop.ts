/**
 * Lets pending I/O callbacks run before continuing. Long loops of the consumer (parsing the
 * spool, person processing) call it between slices so that capture requests are answered in
 * between instead of waiting for the whole batch.
 */
export const yieldToEventLoop = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve))
