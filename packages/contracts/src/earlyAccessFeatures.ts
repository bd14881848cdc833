import { z } from 'zod'
import { minimalFeatureFlagSchema } from './featureFlags'

/** PostHog's stages of an early access feature; posthog-js is shown those in `beta` unless it asks for others. */
export const EARLY_ACCESS_STAGES = ['draft', 'concept', 'alpha', 'beta', 'general-availability', 'archived'] as const

export const earlyAccessFeatureSchema = z.object({
  id: z.uuid(),
  feature_flag: minimalFeatureFlagSchema.nullable(),
  name: z.string(),
  description: z.string(),
  stage: z.enum(EARLY_ACCESS_STAGES),
  documentation_url: z.string(),
  payload: z.unknown(),
  created_at: z.string(),
})
export type EarlyAccessFeature = z.infer<typeof earlyAccessFeatureSchema>

const stageSchema = z.enum(EARLY_ACCESS_STAGES, { error: (issue) => `"${String(issue.input)}" is not a valid choice.` })
const documentationUrlSchema = z.union([z.url().max(800), z.literal('')])
/** Any JSON, as PostHog takes it, up to a bound. */
const payloadSchema = z
  .unknown()
  .refine((v) => (JSON.stringify(v) ?? '').length <= 100_000, 'The payload is larger than 100,000 characters.')

export const earlyAccessFeatureCreateSchema = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(10_000).optional(),
  stage: stageSchema,
  documentation_url: documentationUrlSchema.optional(),
  /** What posthog-js hands the page with the feature (any JSON). */
  payload: payloadSchema.optional(),
  /** An existing flag to use instead of creating one. */
  feature_flag_id: z.number().int().optional(),
})
export type EarlyAccessFeatureCreate = z.infer<typeof earlyAccessFeatureCreateSchema>

export const earlyAccessFeatureUpdateSchema = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  description: z.string().max(10_000).optional(),
  stage: stageSchema.optional(),
  documentation_url: documentationUrlSchema.optional(),
  payload: payloadSchema.optional(),
})
export type EarlyAccessFeatureUpdate = z.infer<typeof earlyAccessFeatureUpdateSchema>

/** A feature as posthog-js's getEarlyAccessFeatures reads it (its FeaturePreview). */
export const publicEarlyAccessFeatureSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string(),
  stage: z.enum(EARLY_ACCESS_STAGES),
  documentationUrl: z.string(),
  payload: z.unknown(),
  flagKey: z.string().nullable(),
})
export type PublicEarlyAccessFeature = z.infer<typeof publicEarlyAccessFeatureSchema>
