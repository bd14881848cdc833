// The flag-evaluation benchmark: `npm run bench:decide`. Starts the service on embedded
// defaults with 50 flags of mixed kinds, drives POST /decide/ with autocannon at full speed and
// with h2load evenly paced at half that rate, and prints requests/s and latency, with the
// ratio to a bare uWebSockets.js handler measured in the same run. BENCH_RUNS (default 3) and BENCH_SECONDS (default 10) as for bench:ingest.
import {
  bareUwsRequestsPerSec,
  CONNECTIONS,
  h2load,
  load,
  medianOfRuns,
  percentile,
  ratio,
  RUNS,
  SECONDS,
  stop,
  withService,
} from './bench/harness'

/** 50 flags: plain rollouts, person-property targeting, multivariate with payloads, several conditions. */
function flags(): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = []
  for (let i = 0; i < 20; i++)
    out.push({ key: `rollout-${i}`, filters: { groups: [{ properties: [], rollout_percentage: (i * 5) % 100 }] } })
  for (let i = 0; i < 15; i++) {
    const property = [
      { key: 'email', value: '@acme.com', operator: 'icontains', type: 'person' },
      { key: 'plan', value: ['pro', 'enterprise'], operator: 'exact', type: 'person' },
      { key: 'seats', value: 10, operator: 'gt', type: 'person' },
    ][i % 3]
    out.push({ key: `targeted-${i}`, filters: { groups: [{ properties: [property], rollout_percentage: 50 }] } })
  }
  for (let i = 0; i < 10; i++) {
    out.push({
      key: `experiment-${i}`,
      filters: {
        groups: [{ properties: [], rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'control', rollout_percentage: 34 },
            { key: 'a', rollout_percentage: 33 },
            { key: 'b', rollout_percentage: 33 },
          ],
        },
        payloads: { a: '{"color":"blue"}', b: '{"color":"green"}' },
      },
    })
  }
  for (let i = 0; i < 5; i++) {
    out.push({
      key: `layered-${i}`,
      filters: {
        groups: [
          { properties: [{ key: 'plan', value: 'enterprise', type: 'person' }], rollout_percentage: 100 },
          { properties: [{ key: 'email', value: '@example\\.org$', operator: 'regex', type: 'person' }], rollout_percentage: 30 },
          { properties: [], rollout_percentage: 5 },
        ],
      },
    })
  }
  return out
}

interface RunFigures {
  decideReqPerSec: number
  decideP50Ms: number
  decideP99Ms: number
  decideP99AtHalfRateMs: number
  bareUwsReqPerSec: number
  /** Within the run: the machine's speed drifts between runs. */
  ratio: number
}

function run(): Promise<RunFigures> {
  return withService('burrow-bench-decide-', async (service) => {
    for (const flag of flags()) await service.api('/api/projects/@current/feature_flags/', { method: 'POST', body: flag })
    const body = JSON.stringify({
      api_key: service.token,
      distinct_id: 'user-4711',
      person_properties: { email: 'ann@acme.com', plan: 'pro', seats: 12 },
    })
    const check = await (await fetch(`${service.base}/decide/?v=3`, { method: 'POST', body })).json()
    if (Object.keys(check.featureFlags ?? {}).length !== 50)
      throw new Error(`expected 50 evaluated flags, got ${JSON.stringify(check).slice(0, 300)}`)
    const full = await load(`${service.base}/decide/?v=3`, body)
    const half = await h2load(`${service.base}/decide/?v=3`, body, { rate: Math.round(full.requests.average / 2) })
    await stop(service.child)
    const bareUwsReqPerSec = await bareUwsRequestsPerSec('/decide/', body)
    return {
      decideReqPerSec: Math.round(full.requests.average),
      decideP50Ms: full.latency.p50,
      decideP99Ms: full.latency.p99,
      decideP99AtHalfRateMs: Math.round(percentile(half.latenciesMs, 99) * 100) / 100,
      bareUwsReqPerSec,
      ratio: ratio(full.requests.average, bareUwsReqPerSec),
    }
  })
}

const m = await medianOfRuns(run)
console.log(`\nmedians of ${RUNS} runs, ${SECONDS} s of load each, ${CONNECTIONS} connections, 50 flags of mixed kinds:`)
console.log(`/decide/?v=3   ${m('decideReqPerSec')} req/s   ratio to bare uWebSockets.js ${m('ratio')} (median of the runs' own ratios)`)
console.log(
  `  latency      p50 ${m('decideP50Ms')} ms, p99 ${m('decideP99Ms')} ms at full rate; p99 ${m('decideP99AtHalfRateMs')} ms at half rate, evenly paced (target < 5)`,
)
console.log(`baseline       bare uWebSockets.js ${m('bareUwsReqPerSec')} req/s`)
