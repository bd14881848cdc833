import { createHash, randomInt } from 'node:crypto'
import { problems } from '@burrow/contracts'
import type { PluginEvent, Transformation } from './event'

export const SAMPLING_METHODS = ['Distinct ID aware sampling', 'Random sampling'] as const

/** 15 hex digits' largest value (as a double, as PostHog divides by it). */
const MAX_15_HEX = parseInt('f'.repeat(15), 16)

/** The percentage a config keeps, refused (as a validation error of the field) unless within 0–100. */
export function samplingPercentage(config: Record<string, unknown>): number {
  // Read as PostHog reads it: the number the text starts with ("50%" is 50), none in "" or "abc".
  const percentage = Number.parseFloat(typeof config.percentage === 'string' ? config.percentage : '100')
  if (!Number.isFinite(percentage) || percentage < 0 || percentage > 100) {
    throw problems.validation('config__percentage', 'Percentage must be a number between 0 and 100.')
  }
  return percentage
}

/**
 * Whether the distinct-id method keeps this id: PostHog's rule (the first 15 hex digits of
 * sha256(distinct_id) as a share of their maximum, kept when at most the percentage), so that a
 * higher percentage keeps every id a lower one kept.
 */
export function keepsDistinctId(distinctId: string, percentage: number): boolean {
  const hash = createHash('sha256').update(distinctId).digest('hex')
  return parseInt(hash.slice(0, 15), 16) / MAX_15_HEX <= percentage / 100
}

/** PostHog's Downsampling; the random method keeps exactly the share asked (PostHog's rounding kept some at 0%). */
export function downsampling(config: Record<string, unknown>): Transformation {
  const percentage = samplingPercentage(config)
  const random = config.samplingMethod === 'Random sampling'
  return (event: PluginEvent) => {
    if (percentage >= 100) return event
    const keep = random ? randomInt(0, 1_000_000) < percentage * 10_000 : keepsDistinctId(event.distinct_id, percentage)
    return keep ? event : null
  }
}
