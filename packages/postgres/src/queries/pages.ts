import type postgres from 'postgres'
import type { Sql } from '../connect'

export interface PageWindow {
  limit: number
  offset: number
}

type Fragment = postgres.PendingQuery<postgres.Row[]>

/** One page of a table's rows in the given order, and how many rows match in all. */
export async function selectPage<Row extends object>(
  sql: Sql,
  query: { table: string; where: Fragment; orderBy: Fragment; page: PageWindow },
): Promise<{ count: number; rows: Row[] }> {
  const table = sql(query.table)
  const [rows, [total]] = await Promise.all([
    sql<Row[]>`select * from ${table} where ${query.where} order by ${query.orderBy} limit ${query.page.limit} offset ${query.page.offset}`,
    sql<{ n: number }[]>`select count(*)::int as n from ${table} where ${query.where}`,
  ])
  return { count: total?.n ?? 0, rows: [...rows] }
}

/** An ILIKE pattern matching text that contains `search` literally (its % and _ escaped). */
export function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** Rows where every term is contained in one of the columns (case-insensitively); all rows without terms. */
export function everyTermIn(sql: Sql, columns: readonly string[], terms: readonly string[]): Fragment {
  if (terms.length === 0) return sql`true`
  const clauses = terms.map((term) => {
    const pattern = containsPattern(term)
    return columns.map((column) => sql`${sql(column)} ilike ${pattern}`).reduce((a, b) => sql`${a} or ${b}`)
  })
  return clauses.reduce((a, b) => sql`(${a}) and (${b})`, sql`true`)
}
