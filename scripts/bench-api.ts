// The private API's rate limiter, what it costs: `npm run bench:api`. Starts the service three
// times, with the limits off, counted in memory, and counted in Redis (REDIS_URL, or a Redis on
// localhost), the limits set high enough never to refuse; drives GET /api/projects/:id/ with a
// personal API key with autocannon at full speed, and prints requests/s, latency and each
// limiter's ratio to no limiter. BENCH_RUNS (default 3) and BENCH_SECONDS (default 10) as for bench:ingest.
import autocannon from 'autocannon'
import { CONNECTIONS, KEY, medianOfRuns, ratio, RUNS, SECONDS, withService } from './bench/harness'

const NEVER = '1000000000'
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

const CONFIGURATIONS = {
  off: { API_RATE_LIMIT_PER_MINUTE: '0', API_RATE_LIMIT_PER_HOUR: '0' },
  memory: { API_RATE_LIMIT_PER_MINUTE: NEVER, API_RATE_LIMIT_PER_HOUR: NEVER },
  redis: { API_RATE_LIMIT_PER_MINUTE: NEVER, API_RATE_LIMIT_PER_HOUR: NEVER, REDIS_URL },
}

function get(url: string): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers: { authorization: `Bearer ${KEY}` }, connections: CONNECTIONS, duration: SECONDS }, (err, result) => {
      if (err) reject(err instanceof Error ? err : new Error(String(err)))
      else if (result.non2xx > 0 || result.errors > 0) reject(new Error(`${result.non2xx} answers were not 2xx, ${result.errors} errors`))
      else resolve(result)
    })
  })
}

async function measure(env: Record<string, string>): Promise<{ reqPerSec: number; p50Ms: number; p99Ms: number }> {
  return withService(
    'burrow-bench-api-',
    async (service) => {
      const me = (await service.api('/api/users/@me/')) as { team: { id: number } }
      const result = await get(`${service.base}/api/projects/${me.team.id}/`)
      return { reqPerSec: Math.round(result.requests.average), p50Ms: result.latency.p50, p99Ms: result.latency.p99 }
    },
    env,
  )
}

interface RunFigures {
  offReqPerSec: number
  memoryReqPerSec: number
  redisReqPerSec: number
  offP99Ms: number
  memoryP99Ms: number
  redisP99Ms: number
  /** Within the run: the machine's speed drifts between runs. */
  memoryRatio: number
  redisRatio: number
}

async function run(): Promise<RunFigures> {
  const off = await measure(CONFIGURATIONS.off)
  const memory = await measure(CONFIGURATIONS.memory)
  const redis = await measure(CONFIGURATIONS.redis)
  return {
    offReqPerSec: off.reqPerSec,
    memoryReqPerSec: memory.reqPerSec,
    redisReqPerSec: redis.reqPerSec,
    offP99Ms: off.p99Ms,
    memoryP99Ms: memory.p99Ms,
    redisP99Ms: redis.p99Ms,
    memoryRatio: ratio(memory.reqPerSec, off.reqPerSec),
    redisRatio: ratio(redis.reqPerSec, off.reqPerSec),
  }
}

const m = await medianOfRuns(run)
console.log(`\nmedians of ${RUNS} runs, ${SECONDS} s of load each, ${CONNECTIONS} connections, GET /api/projects/:id/ with one key:`)
console.log(`limits off          ${m('offReqPerSec')} req/s, p99 ${m('offP99Ms')} ms`)
console.log(`counted in memory   ${m('memoryReqPerSec')} req/s, p99 ${m('memoryP99Ms')} ms, ratio to off ${m('memoryRatio')}`)
console.log(`counted in Redis    ${m('redisReqPerSec')} req/s, p99 ${m('redisP99Ms')} ms, ratio to off ${m('redisRatio')}`)
