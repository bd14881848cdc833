// The plugins benchmark: `npm run bench:plugins`. Starts the service on embedded defaults and
// measures, in the same service: /batch/ events landed per second with no plugin, then with
// GeoIP (the bundled GeoLite2 City database), Property Filter and Taxonomy Plugin enabled
// (the ratio is the figure; target >= 0.8), each for small events (about 330 bytes) and for
// posthog-js pageviews (about 2 kB); then Webhook Export deliveries per second to a local
// endpoint. First, in process, the transformation stage's CPU per event with and without the
// three plugins. BENCH_RUNS (default 3) and BENCH_SECONDS (default 10) as for bench:ingest.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { benchEvent, posthogJsPageview } from './bench/events'
import { load, medianOfRuns, ratio, sleep, storedEventCount, untilIdle, withService, type Service } from './bench/harness'
import { transformStageCpu } from './bench/pluginStage'

const BATCH_SIZE = 100
const WEBHOOK_EVENTS = 5_000

/** Pageviews and custom events (which the Taxonomy Plugin renames) from addresses of many places. */
function pluginBenchEvent(shape: (i: number) => Record<string, unknown>, i: number): Record<string, unknown> {
  const e = shape(i) as { event: string; properties: Record<string, unknown> }
  const ips = [`81.2.69.${i % 250}`, `89.160.20.${i % 250}`, `216.160.83.${i % 250}`, `8.8.${i % 200}.${i % 250}`, `2.125.160.${i % 250}`]
  return {
    ...e,
    event: i % 2 === 0 ? e.event : 'dashboard viewed',
    properties: { ...e.properties, $ip: ips[i % ips.length] },
  }
}

/** Events landed per second under /batch/ load, measured from an idle service (each phase pays for its own merges only). */
async function landedPerSec(service: Service, body: string): Promise<number> {
  await untilIdle(service.child.process.pid!)
  const before = await storedEventCount(service)
  const started = performance.now()
  const result = await load(`${service.base}/batch/`, body)
  const accepted = result['2xx'] * BATCH_SIZE
  while ((await storedEventCount(service)) < before + accepted) await sleep(200)
  return Math.round(accepted / ((performance.now() - started) / 1000))
}

async function enable(service: Service, plugin: number, order: number, config: Record<string, unknown> = {}): Promise<void> {
  const res = (await service.api('/api/projects/@current/plugin_configs/', {
    method: 'POST',
    body: { plugin, enabled: true, order, config },
  })) as {
    id?: number
  }
  if (!res.id) throw new Error(`could not enable plugin ${plugin}: ${JSON.stringify(res)}`)
}

/** Waits until an event captured now is stored with the plugins' marks: the configs reached the consumer. */
async function untilPluginsRun(service: Service): Promise<void> {
  for (let i = 0; ; i++) {
    const distinctId = `plugins-ready-${i}`
    await fetch(`${service.base}/capture/`, {
      method: 'POST',
      body: JSON.stringify({ api_key: service.token, event: 'ready check', distinct_id: distinctId }),
    })
    await sleep(500)
    const page = (await service.api(`/api/projects/@current/events/?distinct_id=${distinctId}&limit=1`)) as {
      results: Array<{ properties: Record<string, unknown> }>
    }
    if (page.results[0]?.properties.$plugins_succeeded) return
  }
}

/** A local endpoint that counts what it is sent, answering 200. */
async function sink(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      received++
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}

interface RunFigures {
  landedWithoutPerSec: number
  landedWithPerSec: number
  landedRatio: number
  pageviewsWithoutPerSec: number
  pageviewsWithPerSec: number
  pageviewsRatio: number
  webhookDeliveriesPerSec: number
}

const enableTransformations = async (service: Service) => {
  await enable(service, 1, 1)
  await enable(service, 2, 2, { properties: '$browser_version,$lib_version' })
  await enable(service, 4, 3, { defaultNamingConvention: 'snake_case' })
  await untilPluginsRun(service)
}

const batchOf = (service: Service, shape: (i: number) => Record<string, unknown>) =>
  JSON.stringify({ api_key: service.token, batch: Array.from({ length: BATCH_SIZE }, (_, i) => pluginBenchEvent(shape, i)) })

/** Webhook Export deliveries per second of events sent while it is enabled (the transformations too). */
async function webhookDeliveriesPerSec(service: Service, body: string): Promise<number> {
  const endpoint = await sink()
  try {
    await enable(service, 5, 4, { url: endpoint.url })
    await untilPluginsRun(service)
    await untilIdle(service.child.process.pid!)
    const started = performance.now()
    const baseline = endpoint.received()
    for (let sent = 0; sent < WEBHOOK_EVENTS; sent += BATCH_SIZE) {
      await fetch(`${service.base}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    }
    while (endpoint.received() - baseline < WEBHOOK_EVENTS) await sleep(100)
    return Math.round(WEBHOOK_EVENTS / ((performance.now() - started) / 1000))
  } finally {
    await endpoint.close()
  }
}

/**
 * Events of `shape` landed per second without plugins and then with the transformations, in a
 * service of its own (so that no shape is measured beside the merges of another's parts); `then`
 * runs in the same service afterwards.
 */
async function withoutAndWith<T>(
  shape: (i: number) => Record<string, unknown>,
  then: (service: Service, body: string) => Promise<T>,
): Promise<{ without: number; withPlugins: number; then: T }> {
  return withService(
    'burrow-bench-plugins-',
    async (service) => {
      const body = batchOf(service, shape)
      const without = await landedPerSec(service, body)
      await enableTransformations(service)
      const withPlugins = await landedPerSec(service, body)
      return { without, withPlugins, then: await then(service, body) }
    },
    // The webhook's endpoint listens on localhost.
    { WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' },
  )
}

async function run(): Promise<RunFigures> {
  const small = await withoutAndWith(benchEvent, webhookDeliveriesPerSec)
  const pageviews = await withoutAndWith(posthogJsPageview, async () => undefined)
  return {
    landedWithoutPerSec: small.without,
    landedWithPerSec: small.withPlugins,
    landedRatio: ratio(small.withPlugins, small.without),
    pageviewsWithoutPerSec: pageviews.without,
    pageviewsWithPerSec: pageviews.withPlugins,
    pageviewsRatio: ratio(pageviews.withPlugins, pageviews.without),
    webhookDeliveriesPerSec: small.then,
  }
}

const stage = await transformStageCpu()
const m = await medianOfRuns(run)
console.log(`Transformation stage, in process, main-thread CPU per event of a 100-event batch`)
console.log(`  no plugin enabled                               ${stage.noneUs} µs`)
console.log(`  GeoIP + Property Filter + Taxonomy Plugin       ${stage.threeUs} µs`)
console.log(`/batch/ events landed (100 events of ~330 B per request)`)
console.log(`  no plugin                                       ${m('landedWithoutPerSec')} /s`)
console.log(`  GeoIP + Property Filter + Taxonomy Plugin       ${m('landedWithPerSec')} /s   ratio ${m('landedRatio')} (target >= 0.8)`)
console.log(`/batch/ posthog-js pageviews landed (100 of ~2 kB per request)`)
console.log(`  no plugin                                       ${m('pageviewsWithoutPerSec')} /s`)
console.log(`  GeoIP + Property Filter + Taxonomy Plugin       ${m('pageviewsWithPerSec')} /s   ratio ${m('pageviewsRatio')}`)
console.log(`Webhook Export to a local endpoint               ${m('webhookDeliveriesPerSec')} deliveries/s (${WEBHOOK_EVENTS} events)`)
