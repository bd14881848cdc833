import type { Clock } from './clock'
import { createMemoryCache } from './memoryCache'
import type { LogFn } from './outageLog'
import { createRedisCache } from './redisCache'
import type { SharedCache } from './sharedCache'

export function createSharedCache(redisUrl: string | undefined, log?: LogFn, options: { clock?: Clock } = {}): Promise<SharedCache> {
  return redisUrl ? createRedisCache(redisUrl, log, options) : Promise.resolve(createMemoryCache(options))
}
