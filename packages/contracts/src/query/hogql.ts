import { z } from 'zod'
import { modifiersSchema, nodeFields, unsupported } from './fields'

/** The longest HogQL text or expression accepted, in characters. */
export const MAX_HOGQL_TEXT = 65_536
/** PostHog's most rows one query answers. */
export const MAX_QUERY_ROWS = 50_000

const hogqlText = z.string().max(MAX_HOGQL_TEXT)

/** One of PostHog's property filters, as queries take them (`type` event or person). */
export const queryPropertyFilterSchema = z.looseObject({
  key: z.string().min(1).max(1_000),
  value: z.unknown().optional(),
  operator: z.string().max(50).nullish(),
  type: z.string().max(50).optional(),
})

const propertyFilters = z.array(queryPropertyFilterSchema).max(100)

const dateText = z.string().max(100)

/** PostHog's HogQLQuery: a SELECT in HogQL, with values for its `{placeholders}`. */
export const hogQLQuerySchema = z.object({
  kind: z.literal('HogQLQuery'),
  query: hogqlText.min(1),
  values: z.record(z.string().max(200), z.unknown()).optional(),
  /** What `{filters}` in the query stands for. */
  filters: z
    .object({
      properties: propertyFilters.nullish(),
      dateRange: z
        .object({ date_from: dateText.nullish(), date_to: dateText.nullish(), explicitDate: unsupported('explicitDate', [false]) })
        .nullish(),
      /** Leave out the events of the project's test accounts. */
      filterTestAccounts: z.boolean().nullish(),
    })
    .nullish(),
  name: z.string().max(400).nullish(),
  ...nodeFields,
  modifiers: modifiersSchema,
  connectionId: unsupported('connectionId'),
  sendRawQuery: unsupported('sendRawQuery', [false]),
  variables: unsupported('variables', [{}]),
  explain: unsupported('explain', [false]),
})
export type HogQLQuery = z.infer<typeof hogQLQuerySchema>

/** PostHog's EventsQuery: columns, conditions and order as HogQL expressions over events. */
export const eventsQuerySchema = z.object({
  kind: z.literal('EventsQuery'),
  select: z.array(hogqlText).max(100),
  where: z.array(hogqlText).max(100).nullish(),
  orderBy: z.array(hogqlText).max(20).nullish(),
  properties: propertyFilters.nullish(),
  fixedProperties: propertyFilters.nullish(),
  event: z.string().max(400).nullish(),
  events: z.array(z.string().max(400)).max(100).nullish(),
  personId: z.string().max(200).nullish(),
  after: dateText.nullish(),
  before: dateText.nullish(),
  limit: z.number().int().min(1).max(MAX_QUERY_ROWS).nullish(),
  offset: z.number().int().min(0).max(1_000_000).nullish(),
  ...nodeFields,
  modifiers: modifiersSchema,
  /** Leave out the events of the project's test accounts. */
  filterTestAccounts: z.boolean().nullish(),
  source: unsupported('source'),
  actionId: unsupported('actionId'),
  actionSteps: unsupported('actionSteps', [[]]),
})
export type EventsQuery = z.infer<typeof eventsQuerySchema>

const results = z.array(z.array(z.unknown()))

/** What a HogQLQuery answers. */
export const hogQLQueryResponseSchema = z.object({
  results,
  columns: z.array(z.string()),
  /** [column name, ClickHouse type] pairs. */
  types: z.array(z.tuple([z.string(), z.string()])),
  hogql: z.string(),
  clickhouse: z.string().optional(),
  hasMore: z.boolean(),
  limit: z.number().int(),
  offset: z.number().int(),
})
export type HogQLQueryResponse = z.infer<typeof hogQLQueryResponseSchema>

/** What an EventsQuery answers. */
export const eventsQueryResponseSchema = z.object({
  results,
  columns: z.array(z.string()),
  /** The ClickHouse type of each column. */
  types: z.array(z.string()),
  hogql: z.string(),
  hasMore: z.boolean(),
  limit: z.number().int(),
  offset: z.number().int(),
})
export type EventsQueryResponse = z.infer<typeof eventsQueryResponseSchema>
