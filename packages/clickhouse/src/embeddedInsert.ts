// How the embedded engine (chDB) takes a body of encoded rows.
//
// chDB's own raw insert hands the engine the statement and the rows as one query text, and the
// engine passes over that text byte by byte before it reads a row (seen in `perf`): rows given
// that way cost about twice the CPU to read as rows read from a file. So the rows go into a file
// under the data directory, which the statement names (`FROM INFILE`). `npm run
// bench:engine-insert` measures both; the figures are in docs/performance.md.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { EncodedFormat, InsertSettings } from './connect'

/** What runs a statement on the writer's chDB session (the connection's `.chdb` extension). */
export interface ChdbStatements {
  queryAsync(query: string): Promise<unknown>
}

export interface EncodedInsert {
  table: string
  format: EncodedFormat
  body: Buffer
  settings: InsertSettings
}

/**
 * The directory that holds the bodies being inserted, emptied of what an earlier process left
 * (it died between writing a body and removing it). One process owns a data directory, so any
 * file not named after this process is such a remnant.
 */
export async function insertFilesDir(dataDir: string): Promise<string> {
  const dir = path.join(dataDir, 'insert-bodies')
  await mkdir(dir, { recursive: true })
  const mine = `${process.pid}-`
  for (const name of await readdir(dir)) {
    if (!name.startsWith(mine)) await rm(path.join(dir, name), { force: true })
  }
  return dir
}

let written = 0

/** Inserts the body's rows; the settings go in the statement's SETTINGS clause, so they end with it. */
export async function insertFromFile(chdb: ChdbStatements, dir: string, insert: EncodedInsert): Promise<void> {
  if (insert.body.length === 0) return
  const file = path.join(dir, `${process.pid}-${++written}`)
  await writeFile(file, insert.body)
  try {
    await chdb.queryAsync(insertStatement(insert.table, file, insert.format, insert.settings))
  } finally {
    await rm(file, { force: true })
  }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/
const SETTING_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

export function insertStatement(table: string, file: string, format: EncodedFormat, settings: InsertSettings): string {
  if (!IDENTIFIER.test(table)) throw new Error(`not a table name: ${JSON.stringify(table)}`)
  const clauses = Object.entries(settings).map(([name, value]) => {
    if (!SETTING_NAME.test(name)) throw new Error(`not a setting name: ${JSON.stringify(name)}`)
    return `${name} = ${typeof value === 'number' ? String(value) : stringLiteral(value)}`
  })
  const settingsClause = clauses.length > 0 ? ` SETTINGS ${clauses.join(', ')}` : ''
  return `INSERT INTO ${table} FROM INFILE ${stringLiteral(file)}${settingsClause} FORMAT ${format}`
}

function stringLiteral(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`
}
