import { compareBuild, parse, Range, type SemVer } from 'semver'
import { text } from './values'

export type SemverOperator =
  'semver_eq' | 'semver_neq' | 'semver_gt' | 'semver_gte' | 'semver_lt' | 'semver_lte' | 'semver_tilde' | 'semver_caret' | 'semver_wildcard'

export const SEMVER_OPERATORS: ReadonlySet<string> = new Set<SemverOperator>([
  'semver_eq',
  'semver_neq',
  'semver_gt',
  'semver_gte',
  'semver_lt',
  'semver_lte',
  'semver_tilde',
  'semver_caret',
  'semver_wildcard',
])

/** Without one leading `v`, trimmed ("v1.2.3" → "1.2.3"). */
const normalized = (value: string) => (value.startsWith('v') ? value.slice(1) : value).trim()

/** "08" → "8", "000" → "0"; non-numeric parts unchanged so that they still fail to parse. */
const withoutLeadingZeros = (part: string) => (/^\d+$/.test(part) ? part.replace(/^0+(?=\d)/, '') : part)

/**
 * The shapes mobile SDKs send, made strict MAJOR.MINOR.PATCH as PostHog's flag service does:
 * missing parts padded with 0 ("3.10" → "3.10.0"), leading zeros dropped ("3.08" → "3.8.0"); a
 * pre-release or build suffix is kept as written.
 */
function canonical(version: string): string {
  const cut = version.search(/[-+]/)
  const [core, suffix] = cut === -1 ? [version, ''] : [version.slice(0, cut), version.slice(cut)]
  const parts = core.split('.').map(withoutLeadingZeros)
  while (parts.length < 3) parts.push('0')
  return parts.join('.') + suffix
}

/** A value as a version, or undefined (the semver package would also take "v" or "=" prefixes, which PostHog refuses). */
export function asVersion(value: unknown): SemVer | undefined {
  const version = canonical(normalized(text(value)))
  if (!/^\d/.test(version)) return undefined
  return parse(version) ?? undefined
}

/**
 * The range a tilde, caret or wildcard filter value stands for, or undefined when it is not one.
 * A wildcard written without `*` is a caret range, as a bare requirement is in PostHog's service.
 */
export function rangeOf(operator: 'semver_tilde' | 'semver_caret' | 'semver_wildcard', value: unknown): Range | undefined {
  const written = normalized(text(value))
  let range: string
  if (operator === 'semver_wildcard') {
    const parts = written.split('.').map(withoutLeadingZeros)
    // "1.*.3" is no wildcard: nothing may follow a `*`.
    const firstStar = parts.indexOf('*')
    if (parts.length > 3 || parts.some((p, i) => (p === '*' ? false : !/^\d+$/.test(p) || (firstStar !== -1 && i > firstStar)))) {
      return undefined
    }
    range = firstStar === -1 ? `^${parts.join('.')}` : parts.map((p) => (p === '*' ? 'x' : p)).join('.')
  } else {
    const version = canonical(written)
    if (parse(version) === null) return undefined
    range = `${operator === 'semver_tilde' ? '~' : '^'}${version}`
  }
  try {
    return new Range(range)
  } catch {
    return undefined
  }
}

/** Whether a property's version satisfies a semver condition; a value that is no version holds for none. */
export function matchesSemver(operator: SemverOperator, actual: unknown, expected: unknown): boolean {
  const version = asVersion(actual)
  if (version === undefined) return false
  if (operator === 'semver_tilde' || operator === 'semver_caret' || operator === 'semver_wildcard') {
    return rangeOf(operator, expected)?.test(version) ?? false
  }
  const wanted = asVersion(expected)
  if (wanted === undefined) return false
  // Build metadata counts, as in PostHog's service ("1.0.0+a" is not "1.0.0+b").
  const order = compareBuild(version, wanted)
  if (operator === 'semver_eq') return order === 0
  if (operator === 'semver_neq') return order !== 0
  if (operator === 'semver_gt') return order > 0
  if (operator === 'semver_gte') return order >= 0
  if (operator === 'semver_lt') return order < 0
  return order <= 0
}

/** Whether a filter value is one the operator can compare with (checked when a flag is saved). */
export function isSemverFilterValue(operator: SemverOperator, value: unknown): boolean {
  if (operator === 'semver_tilde' || operator === 'semver_caret' || operator === 'semver_wildcard') {
    return rangeOf(operator, value) !== undefined
  }
  return asVersion(value) !== undefined
}
