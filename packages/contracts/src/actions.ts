import { z } from 'zod'
import { drfBoolean, drfString } from './drf'
import { userSummarySchema } from './users'

/** How a step compares its text, href or URL (PostHog's ActionStepMatching). */
export const STEP_MATCHING = ['contains', 'regex', 'exact'] as const

/** The most steps an action may have: a step is a condition of every query over the action. */
export const MAX_ACTION_STEPS = 50
/** The most characters of a step's event, selector, tag, text, href or URL. */
const MAX_STEP_TEXT = 4096
/** The most property filters of a step, and characters of their JSON. */
const MAX_STEP_PROPERTIES = 100
const MAX_STEP_PROPERTIES_JSON = 64 * 1024

/** A step as PostHog's serializer answers it: every field, null where the step does not filter on it. */
export const actionStepSchema = z.object({
  event: z.string().nullable(),
  properties: z.array(z.record(z.string(), z.unknown())).nullable(),
  selector: z.string().nullable(),
  tag_name: z.string().nullable(),
  text: z.string().nullable(),
  text_matching: z.enum(STEP_MATCHING).nullable(),
  href: z.string().nullable(),
  href_matching: z.enum(STEP_MATCHING).nullable(),
  url: z.string().nullable(),
  url_matching: z.enum(STEP_MATCHING).nullable(),
})
export type ActionStep = z.infer<typeof actionStepSchema>

export const actionSchema = z.object({
  id: z.number().int(),
  name: z.string().nullable(),
  description: z.string(),
  tags: z.array(z.string()),
  post_to_slack: z.boolean(),
  slack_message_format: z.string(),
  steps: z.array(actionStepSchema),
  created_at: z.string(),
  created_by: userSummarySchema.nullable(),
  deleted: z.boolean(),
  /** PostHog's field from before ClickHouse: always false. */
  is_calculating: z.boolean(),
  last_calculated_at: z.string(),
  team_id: z.number().int(),
  /** Tells an action from an event definition where a client lists both. */
  is_action: z.literal(true),
  /** Actions are not compiled to bytecode here, so no compilation fails: always null. */
  bytecode_error: z.string().nullable(),
  pinned_at: z.string().nullable(),
  /** PostHog reads it from a create request for its own analytics and answers null. */
  creation_context: z.null(),
  user_access_level: z.string().nullable(),
})
export type Action = z.infer<typeof actionSchema>

/** DRF's CharField of a step: blank refused, surrounding spaces kept unless `trim` (PostHog trims selectors and URLs). */
const stepText = (options: { trim: boolean }) =>
  drfString((options.trim ? z.string().trim() : z.string()).min(1).max(MAX_STEP_TEXT).nullable()).optional()

const stepMatching = z.enum(STEP_MATCHING).nullable().optional()

/**
 * A step as a client writes it. Fields PostHog does not know (`id`, `isNew`, `name` of older
 * clients) are dropped, as its serializer drops them.
 */
const actionStepWriteSchema = z.object({
  event: stepText({ trim: false }),
  properties: z
    .array(z.record(z.string(), z.unknown()))
    .max(MAX_STEP_PROPERTIES)
    .refine((filters) => JSON.stringify(filters).length <= MAX_STEP_PROPERTIES_JSON, {
      message: `Ensure this value is at most ${MAX_STEP_PROPERTIES_JSON} characters of JSON.`,
    })
    .nullable()
    .optional(),
  selector: stepText({ trim: true }),
  tag_name: stepText({ trim: false }),
  text: stepText({ trim: false }),
  text_matching: stepMatching,
  href: stepText({ trim: false }),
  href_matching: stepMatching,
  url: stepText({ trim: true }),
  url_matching: stepMatching,
})
export type ActionStepWrite = z.infer<typeof actionStepWriteSchema>

/** The ISO 8601 forms Django's parse_datetime reads. */
const ISO_DATETIME = /^\d{4}-\d{1,2}-\d{1,2}[T ]\d{1,2}:\d{1,2}(:\d{1,2}(\.\d{1,6})?)?\s*(Z|[+-]\d{2}(:?\d{2})?)?$/i
const DATETIME_FORMAT_ERROR =
  'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].'

/** PostHog's `pinned_at`: a time pins the action, null (or an empty string) unpins it. */
const pinnedAtSchema = z
  .string()
  .max(64)
  .nullable()
  .refine((v) => v === null || v === '' || (ISO_DATETIME.test(v) && !Number.isNaN(Date.parse(v))), { message: DATETIME_FORMAT_ERROR })
  .transform((v) => (v === null || v === '' ? null : new Date(v)))

/** What a client may set on an action; PUT and PATCH take the same fields, none required. */
export const actionWriteSchema = z
  .object({
    /** Blank (after trimming) is refused, as PostHog refuses it; null leaves the action unnamed. */
    name: drfString(z.string().trim().min(1).max(400).nullable()),
    description: drfString(z.string().max(10_000)),
    tags: z.array(drfString(z.string().max(255))).max(100),
    post_to_slack: drfBoolean(),
    slack_message_format: drfString(z.string().max(1200)),
    /** Replaces every step; an empty list leaves the action without steps. */
    steps: z.array(actionStepWriteSchema).max(MAX_ACTION_STEPS),
    deleted: drfBoolean(),
    pinned_at: pinnedAtSchema,
    /** The folder PostHog's file system files a new action in: there are no folders here, so it is ignored. */
    _create_in_folder: drfString(z.string().max(1000)),
  })
  .partial()
export type ActionWrite = z.infer<typeof actionWriteSchema>

export const actionListQuerySchema = z.object({
  /** Every word in the name or the description. */
  search: z.string().max(1000).optional(),
})
