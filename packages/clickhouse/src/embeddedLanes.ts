import { createClient, type ClickHouseSettings } from '@clickhouse/client'
// The client's own encoder of a parameter's value, as it writes it into a URL: not part of its public surface, and pinned with it.
import { formatQueryParams } from '@clickhouse/client/dist/common/index.js'
import { createChdbConnection } from 'chdb/connection'
import { checkedName, killStatementSql, quoteString, settingValue, type Control, type Lane } from './lanes'

/**
 * A reader lane on the embedded engine: a chDB connection (a session) of its own, so that a
 * statement's output is its own. Everything a statement needs goes in front of it as SETs of its
 * session, in one call:
 *
 * - its parameters as `SET param_x`: chDB runs the statements that bind parameters through its
 *   own call one at a time across all connections (its binding is not safe to run concurrently),
 *   so one slow statement with parameters held every other one; SETs of a session are its own;
 * - its log_comment, the id KILL QUERY finds it by (chDB knows no query_id of ours);
 * - its settings (`base`, and its own), and DEFAULT for any setting an earlier statement on this
 *   session changed that this one does not: a session keeps its SETs, and one statement's
 *   settings must not bound the next.
 *
 * chDB keeps what a failed statement had written (a JSON header, rows) and hands it out in front
 * of the session's next answer: reset() drains it before the lane serves anyone else.
 */
export function embeddedLane(dir: string, base: ClickHouseSettings): Lane {
  const client = createClient({ connection: createChdbConnection({ path: dir }) } as never)
  const changed = new Set<string>()
  return {
    async run(statement) {
      const settings: Record<string, unknown> = { ...base, ...statement.settings }
      const sets = [`SET log_comment = ${quoteString(statement.id)}`]
      for (const name of changed) if (!(name in settings)) sets.push(`SET ${name} = DEFAULT`)
      changed.clear()
      for (const [name, value] of Object.entries(settings)) {
        if (value === undefined) continue
        sets.push(`SET ${checkedName(name)} = ${settingValue(value)}`)
        if (!(name in base)) changed.add(name)
      }
      for (const [name, value] of Object.entries(statement.params)) {
        sets.push(`SET param_${checkedName(name)} = ${quoteString(formatQueryParams({ value }))}`)
      }
      const sql = `${sets.join(';\n')};\n${statement.sql}`
      if (statement.kind === 'command') {
        await client.command({ query: sql })
        return { text: '', headers: {} }
      }
      const result = await client.query({ query: sql, format: statement.format })
      return { text: await result.text(), headers: {} }
    },
    async reset() {
      const drained = await client.query({ query: 'SELECT 1', format: 'JSONEachRow' })
      await drained.text()
    },
    close: () => client.close(),
  }
}

/** KILL QUERY and the probe on a connection of their own: the lanes may all be busy with what is to be stopped. */
export function embeddedControl(dir: string): Control {
  const client = createClient({ connection: createChdbConnection({ path: dir }) } as never)
  return {
    async kill(id) {
      await client.command({ query: killStatementSql(id) })
    },
    async probe(signal) {
      await client.command({ query: 'SELECT 1', ...(signal ? { abort_signal: signal } : {}) })
    },
    close: () => client.close(),
  }
}
