import { readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { FILE_MODE } from './segments'

/**
 * A restore copies an instance's spool lanes into a new DATA_DIR and marks each with the first
 * segment number it did not copy. Where ClickHouse is a server that the backup does not hold,
 * the instance the spool came from may have stored those rows in it meanwhile, so the batches
 * read from the marked segments are checked against what is stored before they are inserted.
 */
const markPath = (dir: string) => path.join(dir, 'restored.json')

export async function markRestored(dir: string, beforeSeq: number): Promise<void> {
  await writeFile(markPath(dir), JSON.stringify({ before_seq: beforeSeq }), { mode: FILE_MODE })
}

/** The first segment number not restored from a backup, or undefined when the lane holds no restored segment. */
export async function readRestoredMark(dir: string): Promise<number | undefined> {
  try {
    const { before_seq: beforeSeq } = JSON.parse(await readFile(markPath(dir), 'utf8')) as { before_seq?: unknown }
    return Number.isInteger(beforeSeq) ? (beforeSeq as number) : undefined
  } catch {
    return undefined
  }
}

export async function clearRestoredMark(dir: string): Promise<void> {
  await rm(markPath(dir), { force: true })
}
