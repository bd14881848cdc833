// The transformation stage in process: main-thread CPU per event of a consumer batch with no
// plugin enabled (the cost every deployment pays) and with GeoIP, Property Filter and Taxonomy
// Plugin. No service: the stage is given its configs directly.
import { events as eventsTable } from '@burrow/clickhouse'
import { plugins } from '@burrow/plugins'
import { transformFrames, type TransformStageDeps } from '@burrow/ingestion'
import { encodeFrame, type FrameContent } from '@burrow/spool'
import { Counter, Registry } from 'prom-client'
import { benchRowToEncode } from './events'

const ROWS = 100
const BATCHES = Number(process.env.STAGE_BATCHES ?? 2_000)

/** The event properties capture copies to the person, of those a bench event has. */
const PERSON_INITIAL_KEYS = ['$browser', '$browser_version', '$device_type', '$current_url', '$os', '$screen_width']

/**
 * The properties as capture stores them: the person-initial ones also in `$set` and, as
 * `$initial_*`, in `$set_once`, which is what GeoIP adds its keys to.
 */
function asCaptured(properties: Record<string, unknown>): Record<string, unknown> {
  const set: Record<string, unknown> = {}
  const setOnce: Record<string, unknown> = {}
  for (const key of PERSON_INITIAL_KEYS) {
    set[key] = properties[key]
    setOnce[`$initial_${key.slice(1)}`] = properties[key]
  }
  return { ...properties, $set: set, $set_once: setOnce }
}

/** One frame of `rows` events (from the `first`) as capture writes them: half of them custom events the Taxonomy Plugin renames. */
function frame(rows: number, first = 0): FrameContent {
  const lines = Array.from({ length: rows }, (_, i) => {
    const row = benchRowToEncode(first + i)
    const ips = ['81.2.69.142', '89.160.20.120', '216.160.83.60', '8.8.8.8', '2.125.160.217']
    return eventsTable.encodeEventRow({
      ...row,
      event: i % 2 === 0 ? row.event : 'dashboard viewed',
      properties: asCaptured({ ...row.properties, $ip: ips[i % ips.length] }),
    })
  })
  return encodeFrame(
    lines,
    [],
    1,
    lines.map((_, i) => `user-${i}`),
  ).content
}

function stageDeps(loaded: Map<number, plugins.ProjectPlugins>): TransformStageDeps {
  const registry = new Registry()
  return {
    deps: { ch: undefined as never, log: () => {} },
    resolver: { all: () => Promise.resolve(loaded) } as plugins.PluginConfigsResolver,
    // Counted in memory as in the service; never flushed (no PostgreSQL here).
    appMetrics: new plugins.AppMetrics(undefined as never, { flushMs: 60_000, log: () => {} }),
    logs: new plugins.PluginLogBuffer(),
    budgetMs: 1000,
    eventsDropped: new Counter({ name: 'd', help: 'd', labelNames: ['reason'], registers: [registry] }),
    pluginRuns: new Counter({ name: 'r', help: 'r', labelNames: ['plugin', 'outcome'], registers: [registry] }),
  }
}

async function cpuPerEventUs(loaded: Map<number, plugins.ProjectPlugins>): Promise<number> {
  const stage = stageDeps(loaded)
  const batch = [frame(ROWS)]
  for (let i = 0; i < BATCHES / 10; i++) await transformFrames(stage, batch)
  const started = process.cpuUsage()
  for (let i = 0; i < BATCHES; i++) await transformFrames(stage, batch)
  const used = process.cpuUsage(started)
  return (used.user + used.system) / (BATCHES * ROWS)
}

/** GeoIP, Property Filter and Taxonomy Plugin as the benchmarks configure them, for project 1. */
async function threePlugins(): Promise<Map<number, plugins.ProjectPlugins>> {
  const geoIp = new plugins.GeoIpDatabase(process.env.GEOIP_DATABASE)
  await geoIp.ready()
  const env = { geoIp: () => geoIp.get() }
  const transformations = [
    [1, {}],
    [2, { properties: '$browser_version,$lib_version' }],
    [4, { defaultNamingConvention: 'snake_case' }],
  ].map(([pluginId, config], i) => ({
    configId: i + 1,
    pluginId: pluginId as number,
    label: `bench (${i + 1})`,
    run: plugins.catalogEntry(pluginId as number)!.transformation!(config as Record<string, unknown>, env),
  }))
  return new Map([[1, { transformations, destinations: [], setupFailures: [] }]])
}

/** The rows of `count` frames of small events as the consumer inserts them, without plugins and after the three. */
export async function insertedBodies(rows: number, count: number): Promise<{ plain: Buffer[]; transformed: Buffer[] }> {
  const stage = stageDeps(await threePlugins())
  const plain = Array.from({ length: count }, (_, i) => frame(rows, i * rows))
  const transformed = await transformFrames(stage, plain)
  return { plain: plain.map((f) => f.body), transformed: transformed.map((f) => f.body) }
}

export async function transformStageCpu(): Promise<{ noneUs: number; threeUs: number }> {
  const noneUs = await cpuPerEventUs(new Map())
  const threeUs = await cpuPerEventUs(await threePlugins())
  return { noneUs: Math.round(noneUs * 1000) / 1000, threeUs: Math.round(threeUs * 100) / 100 }
}
