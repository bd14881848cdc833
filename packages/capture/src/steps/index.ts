import type { Step } from '../pipeline'
import { hashCookielessVisitor } from './cookieless'
import { resolveDistinctId } from './distinctId'
import { requireEventName } from './eventName'
import { divertNonEvents } from './eventKind'
import { readGroups } from './groups'
import { readPersonIntent } from './personIntent'
import { buildProperties } from './properties'
import { segmentToPostHog } from './segment'
import { resolveTimestamp } from './timestamp'
import { assignUuid } from './uuid'

/** The ingestion steps in order: conversions, then cheap checks, then the rest. */
export const INGESTION_STEPS: readonly Step[] = [
  segmentToPostHog,
  requireEventName,
  resolveDistinctId,
  assignUuid,
  divertNonEvents,
  resolveTimestamp,
  buildProperties,
  hashCookielessVisitor,
  readPersonIntent,
  readGroups,
]

const afterCookieless = INGESTION_STEPS.indexOf(hashCookielessVisitor) + 1
/** The steps up to the cookieless hash, and those after it: stateful cookieless visitors get their ids in between. */
export const STEPS_TO_COOKIELESS = INGESTION_STEPS.slice(0, afterCookieless)
export const STEPS_AFTER_COOKIELESS = INGESTION_STEPS.slice(afterCookieless)
