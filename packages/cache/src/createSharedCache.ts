import { createMemoryCache } from './memoryCache'
import { createRedisCache } from './redisCache'
import type { SharedCache } from './sharedCache'

export function createSharedCache(redisUrl: string | undefined, log?: (msg: string) => void): Promise<SharedCache> {
  return redisUrl ? createRedisCache(redisUrl, log) : Promise.resolve(createMemoryCache())
}
