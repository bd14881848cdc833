import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import {
  pluginConfigCreateSchema,
  pluginConfigUpdateSchema,
  pluginJobRequestSchema,
  pluginLogEntrySchema,
  pluginRearrangeSchema,
} from './plugins'

/** The first problem a client is told of (the API answers with the first issue): where, and what. */
function firstProblem(schema: z.ZodType, input: unknown): { path: string; message: string } | undefined {
  const result = schema.safeParse(input)
  const issue = result.error?.issues[0]
  return issue && { path: issue.path.join('.'), message: issue.message }
}

describe('creating and updating a plugin config', () => {
  it('needs the plugin to create one, and ignores fields that are not writable', () => {
    expect(pluginConfigCreateSchema.parse({ plugin: 3, enabled: true, order: 1, config: { host: 'x' }, team_id: 9 })).toEqual({
      plugin: 3,
      enabled: true,
      order: 1,
      config: { host: 'x' },
    })
    expect(firstProblem(pluginConfigCreateSchema, { enabled: true })?.path).toBe('plugin')
  })

  it('takes the plugin as an integer or its text, as a form sends it', () => {
    expect(pluginConfigCreateSchema.parse({ plugin: '3' }).plugin).toBe(3)
    expect(pluginConfigCreateSchema.parse({ plugin: 3, order: '2', enabled: 'true' })).toMatchObject({ order: 2, enabled: true })
    expect(firstProblem(pluginConfigCreateSchema, { plugin: 'three' })?.path).toBe('plugin')
    expect(firstProblem(pluginConfigCreateSchema, { plugin: 3.5 })?.path).toBe('plugin')
  })

  it('does not let an update move a config to another plugin', () => {
    expect(pluginConfigUpdateSchema.parse({ plugin: 4, enabled: false })).toEqual({ enabled: false })
  })

  it('refuses a negative order and a config that is not an object', () => {
    expect(firstProblem(pluginConfigCreateSchema, { plugin: 3, order: -1 })?.path).toBe('order')
    expect(firstProblem(pluginConfigUpdateSchema, { config: ['host'] })?.path).toBe('config')
  })
})

describe('a plugin job request', () => {
  it('starts the job with an empty payload unless told otherwise', () => {
    expect(pluginJobRequestSchema.parse({ job: { type: 'Export events' } })).toEqual({
      job: { type: 'Export events', payload: {}, operation: 'start' },
    })
    expect(pluginJobRequestSchema.parse({ job: { type: 'Export events', payload: { from: '2024-01-01' }, operation: 'stop' } })).toEqual({
      job: { type: 'Export events', payload: { from: '2024-01-01' }, operation: 'stop' },
    })
  })

  it('answers as PostHog does when the job or its type is missing', () => {
    expect(firstProblem(pluginJobRequestSchema, {})).toEqual({ path: 'job', message: 'The job type must be specified!' })
    expect(firstProblem(pluginJobRequestSchema, { job: 'Export events' })).toEqual({
      path: 'job',
      message: 'The job type must be specified!',
    })
    expect(firstProblem(pluginJobRequestSchema, { job: {} })).toEqual({ path: 'job.type', message: 'The job type must be specified!' })
    expect(firstProblem(pluginJobRequestSchema, { job: { type: '' } })).toEqual({
      path: 'job.type',
      message: 'The job type must be specified!',
    })
  })

  it('refuses an operation other than start or stop', () => {
    expect(firstProblem(pluginJobRequestSchema, { job: { type: 'x', operation: 'pause' } })?.path).toBe('job.operation')
  })
})

describe('rearranging plugin configs', () => {
  it('maps config ids to their new order', () => {
    expect(pluginRearrangeSchema.parse({ orders: { '3': 1, '7': 2 } })).toEqual({ orders: { '3': 1, '7': 2 } })
  })

  it('refuses an id that is not an integer and an order below 0, at their key', () => {
    expect(firstProblem(pluginRearrangeSchema, { orders: { abc: 1 } })?.path).toBe('orders.abc')
    expect(firstProblem(pluginRearrangeSchema, { orders: { '3': -1 } })?.path).toBe('orders.3')
  })
})

describe('a plugin log entry as the API answers it', () => {
  const entry = {
    id: '0190d3c5-7a3e-7b7c-9a5e-3f1c2d4e5f60',
    team_id: 1,
    plugin_id: 2,
    plugin_config_id: 3,
    timestamp: '2024-01-01T00:00:00Z',
    source: 'SYSTEM',
    type: 'INFO',
    message: 'Plugin enabled.',
    instance_id: '0190d3c5-7a3e-7b7c-9a5e-3f1c2d4e5f61',
  }

  it("comes from one of PostHog's sources and levels", () => {
    expect(pluginLogEntrySchema.parse(entry)).toEqual(entry)
    expect(firstProblem(pluginLogEntrySchema, { ...entry, source: 'USER' })?.path).toBe('source')
    expect(firstProblem(pluginLogEntrySchema, { ...entry, type: 'TRACE' })?.path).toBe('type')
  })
})
