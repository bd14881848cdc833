import type { AstNode } from './ast'

/**
 * The functions a HogQL query may call, by HogQL name, with the ClickHouse function each prints as
 * and how many arguments it takes. Anything not listed is refused: nothing here reads outside the
 * rows it is given (no table functions, dictionaries, settings, files, the network or the host).
 */
export interface FunctionSpec {
  clickhouse: string
  min: number
  max: number
}

const fn = (clickhouse: string, min: number, max = min): FunctionSpec => ({ clickhouse, min, max })
const ANY = 1_000

/** Functions applied row by row. */
const SCALAR: Record<string, FunctionSpec> = {
  // Conditionals and nulls.
  if: fn('if', 3),
  multiIf: fn('multiIf', 3, ANY),
  coalesce: fn('coalesce', 1, ANY),
  ifNull: fn('ifNull', 2),
  nullIf: fn('nullIf', 2),
  isNull: fn('isNull', 1),
  isNotNull: fn('isNotNull', 1),
  assumeNotNull: fn('assumeNotNull', 1),
  toNullable: fn('toNullable', 1),
  equals: fn('equals', 2),
  notEquals: fn('notEquals', 2),
  less: fn('less', 2),
  greater: fn('greater', 2),
  lessOrEquals: fn('lessOrEquals', 2),
  greaterOrEquals: fn('greaterOrEquals', 2),
  and: fn('and', 2, ANY),
  or: fn('or', 2, ANY),
  not: fn('not', 1),
  xor: fn('xor', 2, ANY),
  in: fn('in', 2),
  notIn: fn('notIn', 2),
  like: fn('like', 2),
  ilike: fn('ilike', 2),
  notLike: fn('notLike', 2),
  notILike: fn('notILike', 2),
  greatest: fn('greatest', 1, ANY),
  least: fn('least', 1, ANY),
  transform: fn('transform', 3, 4),
  // Arithmetic.
  plus: fn('plus', 2),
  minus: fn('minus', 2),
  multiply: fn('multiply', 2),
  divide: fn('divide', 2),
  intDiv: fn('intDiv', 2),
  intDivOrZero: fn('intDivOrZero', 2),
  modulo: fn('modulo', 2),
  negate: fn('negate', 1),
  abs: fn('abs', 1),
  round: fn('round', 1, 2),
  floor: fn('floor', 1, 2),
  ceil: fn('ceil', 1, 2),
  trunc: fn('trunc', 1, 2),
  sqrt: fn('sqrt', 1),
  cbrt: fn('cbrt', 1),
  exp: fn('exp', 1),
  log: fn('log', 1),
  ln: fn('log', 1),
  log2: fn('log2', 1),
  log10: fn('log10', 1),
  pow: fn('pow', 2),
  power: fn('pow', 2),
  sign: fn('sign', 1),
  // Types.
  toInt: fn('toInt64OrNull', 1),
  toFloat: fn('toFloat64OrNull', 1),
  toDecimal: fn('toDecimal64OrNull', 2),
  toString: fn('toString', 1, 2),
  toUUID: fn('toUUIDOrNull', 1),
  toBool: fn('toBool', 1),
  toDate: fn('toDate', 1, 2),
  toDateTime: fn('parseDateTime64BestEffortOrNull', 1),
  toInt64: fn('toInt64', 1),
  toFloat64: fn('toFloat64', 1),
  toTypeName: fn('toTypeName', 1),
  // Dates and times.
  now: fn('now64', 0),
  today: fn('today', 0),
  yesterday: fn('yesterday', 0),
  toTimeZone: fn('toTimeZone', 2),
  toYear: fn('toYear', 1),
  toQuarter: fn('toQuarter', 1),
  toMonth: fn('toMonth', 1),
  toDayOfYear: fn('toDayOfYear', 1),
  toDayOfMonth: fn('toDayOfMonth', 1),
  toDayOfWeek: fn('toDayOfWeek', 1, 3),
  toHour: fn('toHour', 1),
  toMinute: fn('toMinute', 1),
  toSecond: fn('toSecond', 1),
  toStartOfYear: fn('toStartOfYear', 1),
  toStartOfQuarter: fn('toStartOfQuarter', 1),
  toStartOfMonth: fn('toStartOfMonth', 1),
  toStartOfWeek: fn('toStartOfWeek', 1, 2),
  toMonday: fn('toMonday', 1),
  toStartOfDay: fn('toStartOfDay', 1),
  toStartOfHour: fn('toStartOfHour', 1),
  toStartOfMinute: fn('toStartOfMinute', 1),
  toStartOfFiveMinutes: fn('toStartOfFiveMinutes', 1),
  toStartOfFifteenMinutes: fn('toStartOfFifteenMinutes', 1),
  toStartOfInterval: fn('toStartOfInterval', 2),
  toYYYYMM: fn('toYYYYMM', 1),
  toYYYYMMDD: fn('toYYYYMMDD', 1),
  toUnixTimestamp: fn('toUnixTimestamp', 1),
  fromUnixTimestamp: fn('fromUnixTimestamp', 1),
  dateDiff: fn('dateDiff', 3),
  dateAdd: fn('dateAdd', 3),
  dateSub: fn('dateSub', 3),
  dateTrunc: fn('dateTrunc', 2),
  date_trunc: fn('dateTrunc', 2),
  formatDateTime: fn('formatDateTime', 2),
  parseDateTime64BestEffortOrNull: fn('parseDateTime64BestEffortOrNull', 1, 2),
  toIntervalSecond: fn('toIntervalSecond', 1),
  toIntervalMinute: fn('toIntervalMinute', 1),
  toIntervalHour: fn('toIntervalHour', 1),
  toIntervalDay: fn('toIntervalDay', 1),
  toIntervalWeek: fn('toIntervalWeek', 1),
  toIntervalMonth: fn('toIntervalMonth', 1),
  toIntervalQuarter: fn('toIntervalQuarter', 1),
  toIntervalYear: fn('toIntervalYear', 1),
  // Strings.
  length: fn('length', 1),
  empty: fn('empty', 1),
  notEmpty: fn('notEmpty', 1),
  lower: fn('lower', 1),
  upper: fn('upper', 1),
  concat: fn('concat', 1, ANY),
  substring: fn('substring', 2, 3),
  left: fn('left', 2),
  right: fn('right', 2),
  trim: fn('trimBoth', 1),
  trimLeft: fn('trimLeft', 1),
  trimRight: fn('trimRight', 1),
  position: fn('position', 2),
  positionCaseInsensitive: fn('positionCaseInsensitive', 2),
  startsWith: fn('startsWith', 2),
  endsWith: fn('endsWith', 2),
  replaceAll: fn('replaceAll', 3),
  replaceOne: fn('replaceOne', 3),
  replaceRegexpAll: fn('replaceRegexpAll', 3),
  replaceRegexpOne: fn('replaceRegexpOne', 3),
  match: fn('match', 2),
  extract: fn('extract', 2),
  splitByChar: fn('splitByChar', 2, 3),
  splitByString: fn('splitByString', 2, 3),
  reverse: fn('reverse', 1),
  leftPad: fn('leftPad', 2, 3),
  rightPad: fn('rightPad', 2, 3),
  repeat: fn('repeat', 2),
  domain: fn('domain', 1),
  path: fn('path', 1),
  cutQueryString: fn('cutQueryString', 1),
  extractURLParameter: fn('extractURLParameter', 2),
  base64Encode: fn('base64Encode', 1),
  base64Decode: fn('tryBase64Decode', 1),
  cityHash64: fn('cityHash64', 1, ANY),
  sipHash64: fn('sipHash64', 1, ANY),
  hex: fn('hex', 1),
  // JSON (on a column's text).
  JSONHas: fn('JSONHas', 1, ANY),
  JSONLength: fn('JSONLength', 1, ANY),
  JSONType: fn('JSONType', 1, ANY),
  // The value at the path as the type named last ('Float64', 'Array(String)'): a constant ClickHouse parses, nothing more.
  JSONExtract: fn('JSONExtract', 2, ANY),
  JSONExtractString: fn('JSONExtractString', 1, ANY),
  JSONExtractInt: fn('JSONExtractInt', 1, ANY),
  JSONExtractFloat: fn('JSONExtractFloat', 1, ANY),
  JSONExtractBool: fn('JSONExtractBool', 1, ANY),
  JSONExtractRaw: fn('JSONExtractRaw', 1, ANY),
  JSONExtractArrayRaw: fn('JSONExtractArrayRaw', 1, ANY),
  JSONExtractKeys: fn('JSONExtractKeys', 1, ANY),
  // Arrays and tuples.
  array: fn('array', 0, ANY),
  tuple: fn('tuple', 1, ANY),
  range: fn('range', 1, 3),
  arrayJoin: fn('arrayJoin', 1),
  has: fn('has', 2),
  hasAll: fn('hasAll', 2),
  hasAny: fn('hasAny', 2),
  indexOf: fn('indexOf', 2),
  arrayElement: fn('arrayElement', 2),
  arrayConcat: fn('arrayConcat', 1, ANY),
  arraySlice: fn('arraySlice', 2, 3),
  arraySort: fn('arraySort', 1, 2),
  arrayReverseSort: fn('arrayReverseSort', 1, 2),
  arrayDistinct: fn('arrayDistinct', 1),
  arrayMap: fn('arrayMap', 2, ANY),
  arrayFilter: fn('arrayFilter', 2, ANY),
  arrayExists: fn('arrayExists', 1, ANY),
  arrayAll: fn('arrayAll', 1, ANY),
  arraySum: fn('arraySum', 1, 2),
  arrayCount: fn('arrayCount', 1, 2),
  arrayStringConcat: fn('arrayStringConcat', 1, 2),
  arrayCompact: fn('arrayCompact', 1),
  arrayEnumerate: fn('arrayEnumerate', 1),
  arrayZip: fn('arrayZip', 1, ANY),
  arrayFlatten: fn('arrayFlatten', 1),
  arrayUniq: fn('arrayUniq', 1, ANY),
  emptyArrayString: fn('emptyArrayString', 0),
  tupleElement: fn('tupleElement', 2, 3),
}

/** Aggregate functions; each also has its `...If` form, and parameters such as quantile(0.9). */
const AGGREGATE: Record<string, FunctionSpec> = {
  count: fn('count', 0, 1),
  countIf: fn('countIf', 1, 2),
  sum: fn('sum', 1),
  sumIf: fn('sumIf', 2),
  avg: fn('avg', 1),
  avgIf: fn('avgIf', 2),
  min: fn('min', 1),
  minIf: fn('minIf', 2),
  max: fn('max', 1),
  maxIf: fn('maxIf', 2),
  any: fn('any', 1),
  anyIf: fn('anyIf', 2),
  anyLast: fn('anyLast', 1),
  argMin: fn('argMin', 2),
  argMax: fn('argMax', 2),
  uniq: fn('uniq', 1, ANY),
  uniqIf: fn('uniqIf', 2, ANY),
  uniqExact: fn('uniqExact', 1, ANY),
  uniqExactIf: fn('uniqExactIf', 2, ANY),
  groupArray: fn('groupArray', 1),
  groupArrayIf: fn('groupArrayIf', 2),
  groupUniqArray: fn('groupUniqArray', 1),
  median: fn('median', 1),
  medianIf: fn('medianIf', 2),
  quantile: fn('quantile', 1),
  quantileIf: fn('quantileIf', 2),
  quantiles: fn('quantiles', 1),
  quantileExact: fn('quantileExact', 1),
  stddevPop: fn('stddevPop', 1),
  stddevSamp: fn('stddevSamp', 1),
  varPop: fn('varPop', 1),
  varSamp: fn('varSamp', 1),
  corr: fn('corr', 2),
  topK: fn('topK', 1),
  windowFunnel: fn('windowFunnel', 2, ANY),
  retention: fn('retention', 1, ANY),
}

/** Functions of a window (OVER ...) that are not aggregates. */
const WINDOW: Record<string, FunctionSpec> = {
  row_number: fn('row_number', 0),
  rank: fn('rank', 0),
  dense_rank: fn('dense_rank', 0),
  lag: fn('lagInFrame', 1, 3),
  lead: fn('leadInFrame', 1, 3),
  lagInFrame: fn('lagInFrame', 1, 3),
  leadInFrame: fn('leadInFrame', 1, 3),
  first_value: fn('first_value', 1),
  last_value: fn('last_value', 1),
  nth_value: fn('nth_value', 2),
}

/** SQL's case-insensitive spellings (COUNT, Sum) of the functions above. */
const CASE_INSENSITIVE = new Set(['count', 'sum', 'avg', 'min', 'max', 'if', 'coalesce', 'lower', 'upper', 'length', 'concat', 'substring'])

function lookup(table: Record<string, FunctionSpec>, name: string): FunctionSpec | undefined {
  if (Object.hasOwn(table, name)) return table[name]
  const lower = name.toLowerCase()
  if (CASE_INSENSITIVE.has(lower) && Object.hasOwn(table, lower)) return table[lower]
  return undefined
}

export type FunctionKind = 'scalar' | 'aggregate' | 'window'

/** The function a name calls, and which kind it is; undefined for a name outside the allow-list. */
export function findFunction(name: string): { spec: FunctionSpec; kind: FunctionKind } | undefined {
  const scalar = lookup(SCALAR, name)
  if (scalar) return { spec: scalar, kind: 'scalar' }
  const aggregate = lookup(AGGREGATE, name)
  if (aggregate) return { spec: aggregate, kind: 'aggregate' }
  const window = lookup(WINDOW, name)
  if (window) return { spec: window, kind: 'window' }
  return undefined
}

/** Whether a name is an aggregate function (for EventsQuery's grouping). */
export const isAggregateFunction = (name: string): boolean => lookup(AGGREGATE, name) !== undefined

/** Whether an expression aggregates (an aggregate call outside any subquery of its own). */
export function hasAggregation(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasAggregation)
  if (node === null || typeof node !== 'object') return false
  const n = node as AstNode
  // An aggregate inside a subquery belongs to the subquery.
  if (n.node === 'SelectQuery' || n.node === 'SelectSetQuery') return false
  if (n.node === 'Call' && isAggregateFunction(String(n.name))) return true
  return Object.entries(n).some(([k, v]) => k !== 'start' && k !== 'end' && hasAggregation(v))
}
