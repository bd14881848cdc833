import type { Sql } from '../connect'

/**
 * The salt of a day (YYYY-MM-DD): the stored one, else `fresh`, stored for every instance. Salts
 * of days before `oldestDay` are deleted on the way.
 */
export async function daySalt(sql: Sql, day: string, fresh: Buffer, oldestDay: string): Promise<Buffer> {
  await sql`delete from cookieless_salts where day < ${oldestDay}`
  await sql`insert into cookieless_salts (day, salt) values (${day}, ${fresh}) on conflict (day) do nothing`
  const [row] = await sql<Array<{ salt: Buffer }>>`select salt from cookieless_salts where day = ${day}`
  return row!.salt
}
