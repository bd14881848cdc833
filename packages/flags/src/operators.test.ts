import { describe, expect, it } from 'vitest'
import { evaluateFlag, evaluateFlags, matchProperty, type FlagDefinition } from './index'

// Cases from PostHog's flag service tests (rust/feature-flags property matching), as a client
// would write the conditions.
const holds = (operator: string, value: unknown, actual: unknown, timezone?: string) =>
  matchProperty({ key: 'p', value, operator }, { p: actual }, { timezone })
const missing = (operator: string, value: unknown) => matchProperty({ key: 'p', value, operator }, {})

describe('semver operators', () => {
  it('compare versions as semver, padding mobile versions and dropping leading zeros', () => {
    expect(holds('semver_eq', '1.2.3', '1.2.3')).toBe(true)
    expect(holds('semver_eq', '1.2.3', 'v1.2.3')).toBe(true)
    expect(holds('semver_eq', '3.8.0', '3.08')).toBe(true)
    expect(holds('semver_eq', '3', '3.0.0')).toBe(true)
    expect(holds('semver_neq', '1.2.3', '1.2.4')).toBe(true)
    expect(holds('semver_gt', '3.9.0', '3.10')).toBe(true)
    expect(holds('semver_gt', '1.2.3', '1.2.3')).toBe(false)
    expect(holds('semver_gte', '1.2.3', '1.2.3')).toBe(true)
    expect(holds('semver_lt', '1.0.0', '1.0.0-alpha')).toBe(true)
    expect(holds('semver_lte', '2.0.0', '10.0.0')).toBe(false)
    // What is no version matches nothing, not even semver_neq.
    expect(holds('semver_neq', '1.2.3', 'latest')).toBe(false)
    expect(holds('semver_eq', 'not a version', '1.2.3')).toBe(false)
    expect(holds('semver_eq', '1.2.3', 'vv1.2.3')).toBe(false)
    expect(missing('semver_neq', '1.2.3')).toBe(false)
  })

  it('reads tilde, caret and wildcard ranges as PostHog does', () => {
    expect(holds('semver_tilde', '1.2.3', '1.2.5')).toBe(true)
    expect(holds('semver_tilde', '1.2.3', '1.3.0')).toBe(false)
    expect(holds('semver_tilde', '1.2.3', '1.2.2')).toBe(false)
    expect(holds('semver_tilde', 'v1.2.3', 'v1.2.5')).toBe(true)
    expect(holds('semver_caret', '1.2.3', '1.3.0')).toBe(true)
    expect(holds('semver_caret', '1.2.3', '2.0.0')).toBe(false)
    expect(holds('semver_caret', '0.2.3', '0.2.9')).toBe(true)
    expect(holds('semver_caret', '0.2.3', '0.3.0')).toBe(false)
    expect(holds('semver_caret', '0.0.3', '0.0.4')).toBe(false)
    expect(holds('semver_wildcard', '1.2.*', '1.2.9')).toBe(true)
    expect(holds('semver_wildcard', '1.2.*', '1.3.0')).toBe(false)
    expect(holds('semver_wildcard', '1.*', '1.9.9')).toBe(true)
    expect(holds('semver_wildcard', '1.*.*', '2.0.0')).toBe(false)
    expect(holds('semver_wildcard', '3.08.*', '3.8.1')).toBe(true)
    expect(holds('semver_wildcard', '*', '7.1.0')).toBe(true)
    // Nothing may follow a `*`.
    expect(holds('semver_wildcard', '1.*.3', '1.2.3')).toBe(false)
  })
})

describe('icontains_multi and not_icontains_multi', () => {
  it('hold when any of the texts is contained, ASCII case-insensitively', () => {
    expect(holds('icontains_multi', ['chrome', 'firefox'], 'Mozilla Firefox 120')).toBe(true)
    expect(holds('icontains_multi', ['chrome', 'firefox'], 'Safari')).toBe(false)
    expect(holds('icontains_multi', 'saf', 'Safari')).toBe(true)
    expect(holds('not_icontains_multi', ['chrome', 'firefox'], 'Safari')).toBe(true)
    expect(holds('not_icontains_multi', ['chrome', 'firefox'], 'CHROME')).toBe(false)
    expect(missing('icontains_multi', ['a'])).toBe(false)
    expect(missing('not_icontains_multi', ['a'])).toBe(true)
  })
})

describe('between and not_between', () => {
  it('are inclusive at both ends, numbers or numeric texts', () => {
    expect(holds('between', [10, 20], 10)).toBe(true)
    expect(holds('between', [10, 20], '20')).toBe(true)
    expect(holds('between', ['10', '20'], 15.5)).toBe(true)
    expect(holds('between', [10, 20], 21)).toBe(false)
    expect(holds('not_between', [10, 20], 21)).toBe(true)
    expect(holds('not_between', [10, 20], 15)).toBe(false)
  })

  it('hold for neither side on a value that is no number or bounds out of order; a missing value is outside', () => {
    expect(holds('between', [10, 20], 'ten')).toBe(false)
    expect(holds('not_between', [10, 20], 'ten')).toBe(false)
    expect(holds('not_between', [10, 20], 'NaN')).toBe(false)
    expect(holds('between', [20, 10], 15)).toBe(false)
    expect(holds('not_between', [20, 10], 5)).toBe(false)
    expect(holds('between', [10], 10)).toBe(false)
    expect(missing('between', [10, 20])).toBe(false)
    expect(missing('not_between', [10, 20])).toBe(true)
  })
})

describe('numbers and exact matching', () => {
  it('parse numbers as PostHog does: no hexadecimal, no surrounding spaces, inf as a float', () => {
    expect(holds('gt', 10, '0x10')).toBe(false)
    expect(holds('gt', 10, ' 20 ')).toBe(false)
    expect(holds('gt', 10, '')).toBe(false)
    expect(holds('gt', 10, '20')).toBe(true)
    expect(holds('gt', 10, '1e2')).toBe(true)
    expect(holds('gt', 10, 'inf')).toBe(true)
    expect(holds('lt', 10, '-Infinity')).toBe(true)
    expect(holds('gt', '5', '.5')).toBe(false)
    expect(holds('lt', '5', '+1.')).toBe(true)
    expect(holds('gt', 1, true)).toBe(false)
  })

  it('compares exact and is_not with Unicode lower-casing, the substring operators with ASCII only', () => {
    expect(holds('exact', 'ÄRGER', 'ärger')).toBe(true)
    expect(holds('exact', ['Ελλάδα'], 'ΕΛΛΆΔΑ')).toBe(true)
    expect(holds('is_not', 'ÄRGER', 'ärger')).toBe(false)
    expect(holds('icontains', 'Ä', 'ärger')).toBe(false)
  })
})

describe('date operators', () => {
  it('read numbers as epoch seconds', () => {
    expect(holds('is_date_after', '2024-01-01', 1_717_200_000)).toBe(true) // 2024-06-01
    expect(holds('is_date_before', '2024-01-01', '1717200000')).toBe(false)
    expect(holds('is_date_before', '2024-01-01', 1_700_000_000)).toBe(true) // 2023-11-14
  })

  it('read a date without a zone as midnight in the project timezone, and honour explicit offsets', () => {
    // Midnight in New York is 05:00 UTC.
    expect(holds('is_date_after', '2024-01-02', '2024-01-02T03:00:00Z', 'America/New_York')).toBe(false)
    expect(holds('is_date_after', '2024-01-02', '2024-01-02T03:00:00Z', 'UTC')).toBe(true)
    expect(holds('is_date_exact', '2024-01-02', '2024-01-02T05:00:00Z', 'America/New_York')).toBe(true)
    expect(holds('is_date_exact', '2024-01-02', '2024-01-02 00:00:00', 'Asia/Tokyo')).toBe(true)
    expect(holds('is_date_before', '2024-07-01T00:00:00+02:00', '2024-06-30T22:30:00Z')).toBe(false)
    expect(holds('is_date_after', 20240101, '2024-06-01')).toBe(false)
  })

  it('count relative dates back from now, and refuse 10,000 units or more', () => {
    const now = new Date().toISOString()
    expect(holds('is_date_after', '-7d', now)).toBe(true)
    expect(holds('is_date_after', '9999h', now)).toBe(true)
    expect(holds('is_date_after', '10000h', now)).toBe(false)
    expect(holds('is_date_before', '10000d', '1970-01-02')).toBe(false)
    expect(holds('is_date_after', '-1m', new Date(Date.now() - 40 * 86_400_000).toISOString())).toBe(false)
    expect(holds('is_date_after', '-2y', new Date(Date.now() - 400 * 86_400_000).toISOString())).toBe(true)
  })
})

describe('early access enrolment (super_groups)', () => {
  const flag: FlagDefinition = {
    id: 1,
    key: 'new-dashboard',
    filters: {
      groups: [{ properties: [{ key: 'plan', value: 'enterprise', type: 'person' }], rollout_percentage: 100 }],
      super_groups: [
        {
          properties: [{ key: '$feature_enrollment/new-dashboard', value: ['true'], operator: 'exact', type: 'person' }],
          rollout_percentage: 100,
        },
      ],
      payloads: { true: '{"beta":true}' },
    },
  }

  it('gives the flag to an enrolled person whatever the main conditions say, with its reason', () => {
    const result = evaluateFlag(flag, { distinctId: 'u', personProperties: { '$feature_enrollment/new-dashboard': true, plan: 'free' } })
    expect(result).toMatchObject({
      enabled: true,
      variant: null,
      reason: { code: 'super_condition_value', condition_index: 0, description: 'Super condition value' },
      payload: '{"beta":true}',
    })
  })

  it('keeps the flag from a person who left the programme, and leaves others to the main conditions', () => {
    const left = evaluateFlag(flag, {
      distinctId: 'u',
      personProperties: { '$feature_enrollment/new-dashboard': false, plan: 'enterprise' },
    })
    expect(left).toMatchObject({ enabled: false, reason: { code: 'super_condition_value', condition_index: 0 } })
    const other = evaluateFlag(flag, { distinctId: 'u', personProperties: { plan: 'enterprise' } })
    expect(other).toMatchObject({ enabled: true, reason: { code: 'condition_match', condition_index: 0 } })
  })
})

describe('flag dependencies (flag_evaluates_to)', () => {
  const base: FlagDefinition = {
    id: 1,
    key: 'base',
    filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }], rollout_percentage: 100 }] },
  }
  const colours: FlagDefinition = {
    id: 2,
    key: 'colours',
    filters: {
      groups: [{ rollout_percentage: 100, variant: 'blue' }],
      multivariate: {
        variants: [
          { key: 'red', rollout_percentage: 50 },
          { key: 'blue', rollout_percentage: 50 },
        ],
      },
    },
  }
  const dependsOn = (id: number, key: string, value: unknown): FlagDefinition => ({
    id,
    key,
    filters: {
      groups: [{ properties: [{ key: String(id - 10), type: 'flag', operator: 'flag_evaluates_to', value }], rollout_percentage: 100 }],
    },
  })
  const onBase = { ...dependsOn(11, 'on-base', true) }
  const offBase = dependsOn(11, 'off-base', false)
  const blue = dependsOn(12, 'blue-only', 'blue')
  const red = dependsOn(12, 'red-only', 'red')

  const values = (flags: FlagDefinition[], plan: string, wanted?: FlagDefinition[]) =>
    Object.fromEntries(
      evaluateFlags(flags, { distinctId: 'u', personProperties: { plan } }, wanted).map(({ result }) => [result.key, result.enabled]),
    )

  it('hold on the answer of the flag they name: on, off or a variant', () => {
    expect(values([base, colours, onBase, offBase, blue, red], 'pro')).toEqual({
      base: true,
      colours: true,
      'on-base': true,
      'off-base': false,
      'blue-only': true,
      'red-only': false,
    })
    expect(values([base, onBase, offBase], 'free')).toEqual({ base: false, 'on-base': false, 'off-base': true })
  })

  it('evaluate a dependency the request did not ask for, and a missing one satisfies nothing', () => {
    expect(values([base, onBase], 'pro', [onBase])).toEqual({ 'on-base': true })
    expect(values([onBase], 'pro')).toEqual({ 'on-base': false })
  })

  it('answer a cycle saved before it could be refused without looping', () => {
    const a = dependsOn(21, 'a', true) // depends on 11
    const b: FlagDefinition = { ...dependsOn(11, 'b', true), filters: dependsOn(31, 'x', true).filters } // depends on 21
    expect(values([a, b], 'pro')).toEqual({ a: false, b: false })
  })
})
