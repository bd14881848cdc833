import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { projectCreateSchema, projectListItemSchema, projectSchema, projectUpdateSchema, type Project } from './projects'

/** The first problem a client is told of (the API answers with the first issue): where, and what. */
function firstProblem(schema: z.ZodType, input: unknown): { path: string; message: string } | undefined {
  const result = schema.safeParse(input)
  const issue = result.error?.issues[0]
  return issue && { path: issue.path.join('.'), message: issue.message }
}

const project: Project = {
  id: 1,
  uuid: '0190d3c5-7a3e-7b7c-9a5e-3f1c2d4e5f60',
  organization: '0190d3c5-7a3e-7b7c-9a5e-3f1c2d4e5f61',
  api_token: 'phc_abc',
  app_urls: ['https://example.com'],
  name: 'Web',
  chat_incoming_webhook: null,
  created_at: '2024-01-01T00:00:00Z',
  updated_at: '2024-01-01T00:00:00Z',
  anonymize_ips: false,
  cookieless_server_hash_mode: 0,
  completed_snippet_onboarding: true,
  ingested_event: true,
  test_account_filters: [],
  test_account_filters_default_checked: false,
  path_cleaning_filters: [],
  is_demo: false,
  timezone: 'UTC',
  week_start_day: null,
  data_attributes: ['data-attr'],
  person_display_name_properties: ['email'],
  correlation_config: {},
  session_recording_opt_in: false,
  capture_console_log_opt_in: false,
  effective_membership_level: 8,
  access_control: false,
  has_group_types: false,
  primary_dashboard: null,
  live_events_columns: null,
  recording_domains: null,
}

describe('creating and updating a project', () => {
  it('accepts an empty body: every field is optional', () => {
    expect(projectCreateSchema.parse({})).toEqual({})
    expect(projectUpdateSchema.parse({})).toEqual({})
  })

  it('ignores fields that are not writable, such as the id, the token or unknown ones', () => {
    expect(projectUpdateSchema.parse({ name: 'Web', id: 5, api_token: 'phc_mine', ingested_event: true, colour: 'red' })).toEqual({
      name: 'Web',
    })
  })

  it('trims the name and refuses one that is blank or longer than 200 characters', () => {
    expect(projectCreateSchema.parse({ name: '  Web  ' }).name).toBe('Web')
    expect(firstProblem(projectCreateSchema, { name: '   ' })?.path).toBe('name')
    expect(firstProblem(projectCreateSchema, { name: 'x'.repeat(201) })?.path).toBe('name')
    expect(projectCreateSchema.parse({ name: 'x'.repeat(200) }).name).toHaveLength(200)
  })

  it('accepts only the time zones of the spec, quoting a wrong one', () => {
    expect(projectUpdateSchema.parse({ timezone: 'Europe/Paris' }).timezone).toBe('Europe/Paris')
    expect(projectUpdateSchema.parse({ timezone: 'UTC' }).timezone).toBe('UTC')
    expect(firstProblem(projectUpdateSchema, { timezone: 'Mars/Olympus' })).toEqual({
      path: 'timezone',
      message: '"Mars/Olympus" is not a valid choice.',
    })
  })

  it('takes the week start day as Sunday (0), Monday (1) or null, as PostHog’s choices, refusing any other day', () => {
    expect(projectUpdateSchema.parse({ week_start_day: 1 }).week_start_day).toBe(1)
    expect(projectUpdateSchema.parse({ week_start_day: '0' }).week_start_day).toBe(0)
    expect(projectUpdateSchema.parse({ week_start_day: null }).week_start_day).toBeNull()
    expect(firstProblem(projectUpdateSchema, { week_start_day: 3 })).toEqual({
      path: 'week_start_day',
      message: '"3" is not a valid choice.',
    })
  })

  it("takes booleans as DRF's BooleanField does: JSON booleans, and the texts and numbers it reads as booleans", () => {
    expect(projectUpdateSchema.parse({ anonymize_ips: true }).anonymize_ips).toBe(true)
    for (const yes of ['true', 'True', '1', 1, 'yes', 'on'])
      expect(projectUpdateSchema.parse({ anonymize_ips: yes }).anonymize_ips).toBe(true)
    for (const no of ['false', 'False', '0', 0, 'no', 'off'])
      expect(projectUpdateSchema.parse({ anonymize_ips: no }).anonymize_ips).toBe(false)
    expect(firstProblem(projectUpdateSchema, { anonymize_ips: 'maybe' })?.path).toBe('anonymize_ips')
    expect(firstProblem(projectUpdateSchema, { anonymize_ips: 2 })?.path).toBe('anonymize_ips')
  })

  it('takes a number where text is due as its text, as a CharField does, but not a boolean', () => {
    expect(projectUpdateSchema.parse({ name: 5 }).name).toBe('5')
    expect(firstProblem(projectUpdateSchema, { name: true })?.path).toBe('name')
  })

  it('wants lists where the spec has lists', () => {
    expect(projectUpdateSchema.parse({ app_urls: ['https://a.example', 'https://b.example'] }).app_urls).toHaveLength(2)
    expect(firstProblem(projectUpdateSchema, { app_urls: 'https://a.example' })?.path).toBe('app_urls')
    expect(firstProblem(projectUpdateSchema, { app_urls: ['x'.repeat(2049)] })?.path).toBe('app_urls.0')
  })

  it('keeps any JSON in the free-form fields', () => {
    const filters = [{ key: 'email', value: '@example.com', operator: 'not_icontains', type: 'person' }]
    const body = {
      test_account_filters: filters,
      data_attributes: ['a', 1, null, { b: [true] }],
      correlation_config: { excluded_person_property_names: [] },
    }
    expect(projectUpdateSchema.parse(body)).toEqual(body)
  })

  it('takes null where the spec allows it, and a whole number for the primary dashboard', () => {
    expect(projectUpdateSchema.parse({ chat_incoming_webhook: null, primary_dashboard: null, live_events_columns: null })).toEqual({
      chat_incoming_webhook: null,
      primary_dashboard: null,
      live_events_columns: null,
    })
    expect(firstProblem(projectUpdateSchema, { primary_dashboard: 1.5 })?.path).toBe('primary_dashboard')
    expect(firstProblem(projectUpdateSchema, { name: null })?.path).toBe('name')
  })
})

describe('a project as the API answers it', () => {
  it('carries exactly the fields of the spec, dropping any other', () => {
    expect(projectSchema.parse({ ...project, secret_column: 'x' })).toEqual(project)
  })

  it('is refused when a field is missing, so a response never silently lacks one', () => {
    const { has_group_types: _, ...incomplete } = project
    expect(firstProblem(projectSchema, incomplete)?.path).toBe('has_group_types')
  })

  it('lists carry the short form', () => {
    expect(Object.keys(projectListItemSchema.parse(project)).sort()).toEqual([
      'access_control',
      'api_token',
      'completed_snippet_onboarding',
      'effective_membership_level',
      'id',
      'ingested_event',
      'is_demo',
      'name',
      'organization',
      'timezone',
      'uuid',
    ])
  })
})
