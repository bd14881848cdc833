// The person-property operators the console's condition editors offer (cohorts and feature flags
// alike), as PostHog names them, with the words each editor shows.

export const PERSON_OPERATORS = [
  ['exact', 'equals'],
  ['is_not', 'does not equal'],
  ['icontains', 'contains'],
  ['not_icontains', 'does not contain'],
  ['regex', 'matches the pattern'],
  ['not_regex', 'does not match the pattern'],
  ['gt', 'is greater than'],
  ['gte', 'is at least'],
  ['lt', 'is less than'],
  ['lte', 'is at most'],
  ['is_set', 'is set'],
  ['is_not_set', 'is not set'],
] as const
export type PersonOperator = (typeof PERSON_OPERATORS)[number][0]

const NUMERIC = new Set<PersonOperator>(['gt', 'gte', 'lt', 'lte'])
const VALUELESS = new Set<PersonOperator>(['is_set', 'is_not_set'])

/** Whether an operator compares with a value (`is set` does not). */
export const takesValue = (operator: PersonOperator): boolean => !VALUELESS.has(operator)
/** Whether an operator compares numbers. */
export const isNumeric = (operator: PersonOperator): boolean => NUMERIC.has(operator)
