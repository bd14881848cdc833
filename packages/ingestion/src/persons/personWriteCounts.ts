/**
 * What person processing costs PostgreSQL, counted for /_metrics: the person rows written, and
 * where each batch's property changes of a person were settled (from this server's memory of
 * the person, without a round trip, or by the update statement).
 */
interface PersonWriteCounts {
  written: number
  /** Persons whose changes of a batch were settled without reading or writing them: what this server remembers shows they hold them. */
  settledInMemory: number
  /** Persons whose changes of a batch took a statement: their properties read, or written. */
  sentToPostgres: number
}

/**
 * The process's counts. The metrics read them when scraped; one process runs one main thread
 * and so one person stage (the CLI's replays run in a process of their own).
 */
export const personWriteCounts: PersonWriteCounts = { written: 0, settledInMemory: 0, sentToPostgres: 0 }
