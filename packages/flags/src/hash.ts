import { hash } from 'node:crypto'

/** 2^60 − 1, as PostHog writes it (the SDKs divide by this exact double). */
// eslint-disable-next-line no-loss-of-precision -- the rounded double is the one every SDK divides by
const LONG_SCALE = 0xfffffffffffffff

/**
 * PostHog's bucketing hash: SHA-1 of `<flag key>.<bucketing id><salt>`, its first 15 hex digits
 * as a number, scaled into [0, 1]. Computed the way the SDKs compute it, so that a user falls
 * in the same bucket whether a flag is evaluated here or locally in posthog-node.
 */
export function flagHash(flagKey: string, bucketingId: string, salt = ''): number {
  const hex = hash('sha1', `${flagKey}.${bucketingId}${salt}`, 'hex')
  return Number.parseInt(hex.slice(0, 15), 16) / LONG_SCALE
}
