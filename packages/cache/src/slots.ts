import { randomUUID } from 'node:crypto'
import { createClient } from 'redis'
import { OutageLog, type LogFn } from './outageLog'
import { closeClient, redactedHost, redisClientOptions, RedisCommandTimeout, withinCommandTimeout } from './redisCache'

/**
 * Counted slots per key, shared by every instance: at most `limit` holders of a key at once, each
 * for at most `leaseMs` (a holder that dies frees its slot then). Redis when configured; else
 * this process's memory. While Redis does not answer, each instance counts in its own memory
 * (the limit then holds per instance) rather than letting everything through or holding it up.
 */
export interface SlotStore {
  readonly kind: 'memory' | 'redis'
  /** Takes a slot of `key`: its token, or undefined when all `limit` are held. */
  tryAcquire(key: string, limit: number, leaseMs: number): Promise<string | undefined>
  /** Gives the slot back (from whichever store it came). */
  release(key: string, token: string): Promise<void>
  close(): Promise<void>
}

const KEY_PREFIX = 'burrow:slots:'

/**
 * A sorted set per key: members are the holders' tokens, scores when their leases end, in
 * Redis's own clock (the instances' clocks may disagree). Expired leases go first, then a slot
 * is taken if one is free; the set itself expires with its last lease.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
`

export function createSlotStore(redisUrl: string | undefined, log: LogFn = () => {}): SlotStore {
  const memory = memorySlots()
  if (!redisUrl) return memory
  const client = createClient(redisClientOptions(redisUrl))
  const outage = new OutageLog(`redis slots ${redactedHost(redisUrl)}`, log)
  client.on('error', (err: unknown) => outage.failed(err))
  client.on('ready', () => outage.succeeded())
  void client.connect().catch(() => {})
  /** Tokens of slots taken in memory while Redis did not answer. */
  const local = new Set<string>()
  return {
    kind: 'redis',
    async tryAcquire(key, limit, leaseMs) {
      const token = randomUUID()
      try {
        const taken = await withinCommandTimeout(
          client.eval(ACQUIRE, { keys: [KEY_PREFIX + key], arguments: [String(limit), String(Math.ceil(leaseMs)), token] }),
        )
        return taken === 1 ? token : undefined
      } catch (err) {
        if (!(err instanceof RedisCommandTimeout) && client.isReady) throw err
        const held = await memory.tryAcquire(key, limit, leaseMs)
        if (held !== undefined) local.add(held)
        return held
      }
    },
    async release(key, token) {
      if (local.delete(token)) return memory.release(key, token)
      // A release that does not reach Redis is not retried: the lease ends by itself.
      await withinCommandTimeout(client.zRem(KEY_PREFIX + key, token)).catch(() => {})
    },
    close: () => closeClient(client),
  }
}

/** Slots of this process alone. */
function memorySlots(): SlotStore {
  const held = new Map<string, Map<string, number>>()
  return {
    kind: 'memory',
    tryAcquire(key, limit, leaseMs) {
      const now = Date.now()
      const leases = held.get(key) ?? new Map<string, number>()
      held.set(key, leases)
      for (const [token, until] of leases) if (until <= now) leases.delete(token)
      if (leases.size >= limit) return Promise.resolve(undefined)
      const token = randomUUID()
      leases.set(token, now + leaseMs)
      return Promise.resolve(token)
    },
    release(key, token) {
      const leases = held.get(key)
      leases?.delete(token)
      if (leases?.size === 0) held.delete(key)
      return Promise.resolve()
    },
    close: () => Promise.resolve(),
  }
}
