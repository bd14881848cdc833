import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { createRateLimitStore } from './rateLimits'
import { createRedisCache, REDIS_COMMAND_TIMEOUT_MS } from './redisCache'

const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0

/** A port nothing listens on (yet). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const servers: ChildProcess[] = []
afterEach(() => {
  for (const server of servers.splice(0)) server.kill('SIGKILL')
})

function startRedisServer(port: number): ChildProcess {
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  })
  servers.push(server)
  return server
}

describe.skipIf(!hasRedisServer)('a Redis cache whose server is not up yet', () => {
  it('is created at once, misses while Redis is down, then caches and hears invalidations once it comes', async () => {
    const port = await freePort()
    const lines: string[] = []
    const started = Date.now()
    const cache = await createRedisCache(`redis://127.0.0.1:${port}`, (msg) => lines.push(msg))
    try {
      // Before, creating it waited for as long as Redis stayed down.
      expect(Date.now() - started).toBeLessThan(5_000)
      expect(cache.connected()).toBe(false)
      await cache.set('k', 'v', 60)
      expect(await cache.get('k')).toBeUndefined()

      startRedisServer(port)
      await until(() => cache.connected(), 'the cache to connect')
      await cache.set('k', 'v', 60)
      expect(await cache.get('k')).toBe('v')

      // Invalidations published by another instance reach this one: it subscribed once connected.
      const other = await createRedisCache(`redis://127.0.0.1:${port}`)
      const heard: string[] = []
      cache.onInvalidation((key) => heard.push(key))
      await until(() => other.connected(), 'the second cache to connect')
      await until(async () => {
        await other.publishInvalidation('flags:1')
        return heard.includes('flags:1')
      }, 'the invalidation')
      await other.close()

      expect(lines[0]).toBe(`redis 127.0.0.1:${port} failed`)
      expect(lines.at(-1)).toMatch(new RegExp(`^redis 127.0.0.1:${port} recovered after`))
    } finally {
      await cache.close()
    }
  }, 30_000)

  it('answers a miss within its command timeout when connections are accepted and then reset', async () => {
    // A TCP load balancer whose Redis went away accepts each connection and closes it: the
    // client reconnects, and a command sent meanwhile waited for a reply that never came.
    const port = await freePort()
    const redis = startRedisServer(port)
    const cache = await createRedisCache(`redis://127.0.0.1:${port}`)
    const limits = createRateLimitStore(`redis://127.0.0.1:${port}`)
    const perKey = limits.limit('api', { points: 100, durationS: 60 })
    const resetting = createServer((socket) => socket.resetAndDestroy())
    try {
      await until(() => cache.connected(), 'the cache to connect')
      await cache.set('k', 'v', 60)
      await until(async () => (await perKey.hit('key')).count === 1, 'the counter in Redis')
      redis.kill('SIGKILL')
      await new Promise<void>((resolve) => redis.once('exit', () => resolve()))
      await new Promise<void>((resolve, reject) => {
        resetting.once('error', reject)
        resetting.listen(port, '127.0.0.1', () => resolve())
      })
      for (let i = 0; i < 10; i++) {
        const started = Date.now()
        expect(await cache.get('k')).toBeUndefined()
        expect(Date.now() - started).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS + 1_000)
        // The rate limit counts in memory meanwhile: the request goes on, still counted.
        const counted = Date.now()
        expect(await perKey.hit('key')).toMatchObject({ allowed: true })
        expect(Date.now() - counted).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS + 1_000)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    } finally {
      await cache.close()
      await limits.close()
      await new Promise((resolve) => resetting.close(resolve))
    }
  }, 30_000)

  it('closes at once while Redis is unreachable', async () => {
    const cache = await createRedisCache(`redis://127.0.0.1:${await freePort()}`)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const started = Date.now()
    await cache.close()
    expect(Date.now() - started).toBeLessThan(500)
  })
})

if (!hasRedisServer) console.warn('redis-server is not installed: the tests of a Redis that comes up late are skipped')
