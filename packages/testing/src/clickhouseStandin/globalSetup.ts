// With TEST_CLICKHOUSE=standin, the integration run's ClickHouse is one stand-in process for
// the whole run, named to every test file (each a process of its own) by CLICKHOUSE_URL.
import { startStandinProcess } from './process'

export default async function setup(): Promise<() => Promise<void>> {
  const standin = await startStandinProcess()
  process.env.CLICKHOUSE_URL = standin.url
  return () => standin.stop()
}
