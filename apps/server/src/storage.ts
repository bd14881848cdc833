import { connectClickHouse, type ClickHouse } from '@burrow/clickhouse'
import type { Config } from '@burrow/config'

/** The ClickHouse the configuration names: a server, or the embedded engine under DATA_DIR. */
export function connectClickHouseFrom(config: Config): Promise<ClickHouse> {
  return connectClickHouse({
    url: config.CLICKHOUSE_URL,
    username: config.CLICKHOUSE_USER,
    password: config.CLICKHOUSE_PASSWORD,
    database: config.CLICKHOUSE_DATABASE,
    cluster: config.CLICKHOUSE_CLUSTER,
    dataDir: config.DATA_DIR,
  })
}

/** Where a server URL points, for logs and errors: host, port and database, never the user or password. */
export function redactedTarget(url: string | undefined, absent: string): string {
  if (!url) return absent
  try {
    const parsed = new URL(url)
    return `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`
  } catch {
    return 'an unreadable URL'
  }
}
