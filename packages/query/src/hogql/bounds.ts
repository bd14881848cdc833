import { refused } from './errors'

/**
 * How far a HogQL text may go before it reaches the parser. `@posthog/hogql-parser` is ANTLR
 * compiled to WebAssembly with a small fixed stack: past a few hundred levels of syntax tree it
 * overflows that stack, which corrupts the instance for every later parse (it then hangs or
 * traps); and nested calls and brackets cost time that grows far faster than their depth. The
 * limits sit far above hand-written queries and well below where the parser breaks, measured
 * with the parser alone (the figures are in docs/hogql.md):
 *
 * - the chain: a row of `or` breaks the stack at 408 terms, of `+` at 372, of `??` or nested
 *   `[...]` at 186, of `?:` at 153, of lambdas at 118, of subqueries at 110, of HogQLX tags at 94;
 *   mixed chains of 170 (nesting included) still parse;
 * - the depth: nested calls `f(f(...))` cost about 1.3 s of CPU at 20 levels on a parser that
 *   has not seen their shape, 1.9 s at 24, and over 40 s at 32 (`tuple(`, `not`, `case` and
 *   parentheses alike, or slower);
 * - tokens and operators: 2,000 columns cost about 2 s, 400 conditions 1.4 s;
 * - `between`: ClickHouse rewrites `x BETWEEN a AND b` as `x >= a AND x <= b`, copying `x`, so
 *   nested betweens grow the statement fourfold a level before ClickHouse runs it (10 levels took
 *   0.3 s of the engine's analysis, 12 took 1.2 s, 14 pass its 50,000-element bound), where no
 *   deadline or KILL reaches; the parser is not what limits them.
 */
export const MAX_HOGQL_LENGTH = 65_536
export const MAX_HOGQL_TOKENS = 5_000
export const MAX_HOGQL_OPERATORS = 500
export const MAX_HOGQL_CHAIN = 100
export const MAX_HOGQL_DEPTH = 20
export const MAX_HOGQL_BETWEENS = 10

/** Every limit at once, as measureHogQL stops past them. */
export const HOGQL_LIMITS: HogQLShape = {
  tokens: MAX_HOGQL_TOKENS,
  operators: MAX_HOGQL_OPERATORS,
  chain: MAX_HOGQL_CHAIN,
  depth: MAX_HOGQL_DEPTH,
  betweens: MAX_HOGQL_BETWEENS,
}

export interface HogQLShape {
  /** Tokens as the parser's lexer cuts them (comments and whitespace left out). */
  tokens: number
  /** Operators: symbols, keyword operators (`and`, `or`, `not`, `in`, `like`, `is`, `between`), and `[` (array access nests too). */
  operators: number
  /**
   * The longest chain of one expression: the operators in a row at each level it is nested in
   * (`a OR b OR c` is a chain of two), and the levels themselves. The parser's syntax tree is that
   * deep, and so is its stack.
   */
  chain: number
  /**
   * The deepest nesting of brackets, braces, `case … end`, f-strings, HogQLX tags, and chains of
   * prefix operators, lambdas, aliases and `.` steps.
   */
  depth: number
  /** `between` operators, wherever they are. */
  betweens: number
}

type Mode = 'code' | 'template' | 'fullTemplate' | 'tagOpen' | 'tagClose' | 'tagText'

/**
 * What is open: a bracket; a prefix (a prefix operator, a lambda's arrow, an alias's `AS`, a step
 * of `a.b.c`), open until its operand ends; or a lexer mode, open until its own end.
 */
type Level = '(' | '[' | 'case' | 'prefix' | Mode

const OPERATOR_SYMBOLS = [
  '=~*',
  '!~*',
  '->',
  '::',
  '||',
  '==',
  '>=',
  '<=',
  '!=',
  '<>',
  '~*',
  '!~',
  '=~',
  '?.',
  '??',
  '*',
  '-',
  '=',
  '>',
  '<',
  '%',
  '+',
  '?',
  '~',
  '/',
]
// Multi-character punctuation that is not an operator, matched before its first character alone.
const PUNCTUATION = [':=', '/>']
// `join` too: joins nest (`a JOIN b JOIN c` is a chain), as binary operators do.
const KEYWORD_OPERATORS = new Set(['and', 'or', 'not', 'in', 'like', 'ilike', 'is', 'between', 'join'])
// Words that start a part of a query: the operators before them do not chain with those after.
const CLAUSES = new Set([
  'select',
  'distinct',
  'where',
  'prewhere',
  'having',
  'qualify',
  'by',
  'when',
  'then',
  'else',
  'return',
  'limit',
  'offset',
  'from',
  'group',
  'order',
  'union',
  'intersect',
  'except',
  'with',
  'settings',
  'window',
  'over',
  'partition',
  'asc',
  'desc',
])
// Words after which an expression starts: a `-` or `not` that follows is a prefix.
const EXPRESSION_STARTS = new Set([...CLAUSES, 'case', 'interval', 'on', 'using', ...KEYWORD_OPERATORS])
const ESCAPED = new Set(['b', 'f', 'r', 'n', 't', '0', 'a', 'v', '\\'])
// The lexer's whitespace: Unicode White_Space and the byte-order mark.
const WHITESPACE = /[ \t\r\n\v\f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/
const isSpace = (c: string) => c === ' ' || c === '\n' || c === '\t' || c === '\r' || ((c < '!' || c > '~') && WHITESPACE.test(c))
// The first characters of operators and multi-character punctuation.
const SYMBOL_STARTS = new Set([...OPERATOR_SYMBOLS, ...PUNCTUATION].map((symbol) => symbol[0]!))
const IDENTIFIER_START = /[A-Za-z_$]/
const IDENTIFIER_PART = /[A-Za-z0-9_$]/
const TAG_NAME_START = /[A-Za-z_]/
const TAG_NAME_PART = /[A-Za-z0-9_-]/
const HEX = /[0-9A-Fa-f]/
const DIGIT = /[0-9]/

/**
 * Reads a quoted run that starts at `start` as the parser's lexer reads strings and quoted names:
 * backslash escapes from a fixed set, the quote doubled or escaped. `closed` says whether it
 * ends (`at` is then the index after its closing quote; else where the reading stopped: the
 * lexer then takes the quote alone).
 */
function readQuoted(text: string, start: number, quote: string): { closed: boolean; at: number } {
  let i = start + 1
  while (i < text.length) {
    const c = text[i]!
    if (c === quote) {
      if (text[i + 1] === quote) {
        i += 2
        continue
      }
      return { closed: true, at: i + 1 }
    }
    if (c === '\\') {
      const next = text[i + 1]
      if (next === undefined) break
      if (ESCAPED.has(next.toLowerCase()) || next === quote || (quote === '`' && next === "'")) i += 2
      else if ((next === 'x' || next === 'X') && HEX.test(text[i + 2] ?? '') && HEX.test(text[i + 3] ?? '')) i += 4
      else break
      continue
    }
    i++
  }
  return { closed: false, at: i }
}

/** The parser's test for `<` opening a HogQLX tag: a name, then `>`, `/`, or whitespace and a name or attribute. */
function opensTag(text: string, lt: number): boolean {
  if (!TAG_NAME_START.test(text[lt + 1] ?? '')) return false
  let i = lt + 2
  while (i < text.length && TAG_NAME_PART.test(text[i]!)) i++
  const c = text[i]
  if (c === '>' || c === '/') return true
  if (c === undefined || !isSpace(c)) return false
  for (;;) {
    while (i < text.length && isSpace(text[i]!)) i++
    if (text.startsWith('--', i) || text.startsWith('//', i) || text[i] === '#') {
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++
      continue
    }
    break
  }
  return /[A-Za-z0-9_>/]/.test(text[i] ?? '')
}

/**
 * Measures a HogQL text as the parser's lexer would cut it (its modes included: f-strings,
 * `{...}` placeholders, HogQLX tags and their text), in one pass and without recursion, so that
 * no text can make the measure itself slow; it stops once a count is past `stopPast`.
 */
export function measureHogQL(
  text: string,
  stopPast: HogQLShape = { tokens: Infinity, operators: Infinity, chain: Infinity, depth: Infinity, betweens: Infinity },
): HogQLShape {
  const levels: Level[] = []
  // The operators in a row at each level, and at the top.
  const chains: number[] = []
  let topChain = 0
  // The operators in a row at every open level and at the top, summed.
  let chained = 0
  const modes: Mode[] = ['code']
  // Where each mode's level is in `levels` (the first mode has none), so a mode ends in one step.
  const modeLevels: number[] = []
  // A quote that does not end is taken alone and the text after it read again, which could be
  // quadratic (`'\'\'\'...`); past this many characters of such reads, quotes are taken alone at once.
  let unendedBudget = text.length
  const quoted = (start: number, quote: string): number => {
    if (unendedBudget <= 0) return start + 1
    const { closed, at } = readQuoted(text, start, quote)
    if (closed) return at
    unendedBudget -= at - start
    return start + 1
  }
  let tokens = 0
  let operators = 0
  let chain = 0
  let depth = 0
  let betweens = 0
  // Whether the last token ended an operand, which makes a following `-` or `not` binary.
  let afterOperand = false

  const grown = () => {
    if (levels.length > depth) depth = levels.length
    if (levels.length + chained > chain) chain = levels.length + chained
  }
  const open = (level: Level) => {
    levels.push(level)
    chains.push(0)
    grown()
  }
  const close = () => {
    levels.pop()
    chained -= chains.pop()!
  }
  /** A binary operator: one more in the chain of the innermost level. */
  const chainOperator = () => {
    operators++
    if (chains.length > 0) chains[chains.length - 1]!++
    else topChain++
    chained++
    grown()
  }
  /** A comma or a clause starts a new expression at the innermost level. */
  const endChain = () => {
    if (chains.length > 0) {
      chained -= chains[chains.length - 1]!
      chains[chains.length - 1] = 0
    } else {
      chained -= topChain
      topChain = 0
    }
  }
  /** Prefixes end with their operand: at the next binary operator, comma, closer or clause. */
  const endPrefixes = () => {
    while (levels.at(-1) === 'prefix') close()
  }
  const closeBracket = (level: Level) => {
    endPrefixes()
    if (levels.at(-1) === level) close()
  }
  const pushMode = (mode: Mode) => {
    modes.push(mode)
    modeLevels.push(levels.length)
    open(mode)
  }
  /** Leaves the current mode, and whatever was left open inside it. */
  const popMode = () => {
    if (modes.length <= 1) return
    modes.pop()
    const at = modeLevels.pop()!
    while (levels.length > at) close()
  }

  let i = 0
  // Past a limit the text is refused whatever follows: the rest is not read.
  while (
    i < text.length &&
    tokens <= stopPast.tokens &&
    operators <= stopPast.operators &&
    chain <= stopPast.chain &&
    depth <= stopPast.depth &&
    betweens <= stopPast.betweens
  ) {
    const mode = modes.at(-1)!
    const c = text[i]!

    if (mode === 'template' || mode === 'fullTemplate') {
      if (c === '{') {
        tokens++
        pushMode('code')
        i++
      } else if (c === "'" && mode === 'template') {
        if (text[i + 1] === "'") {
          i += 2
          continue
        }
        tokens++
        popMode()
        afterOperand = true
        i++
      } else {
        // Text, with its escapes (`\'` and `\{` included): one token however long.
        const start = i
        while (i < text.length && text[i] !== '{' && !(mode === 'template' && text[i] === "'")) i += text[i] === '\\' ? 2 : 1
        if (i > start) tokens++
      }
      continue
    }

    if (mode === 'tagOpen' || mode === 'tagClose') {
      if (isSpace(c)) {
        i++
      } else if (mode === 'tagOpen' && text.startsWith('/>', i)) {
        tokens++
        popMode()
        afterOperand = true
        i += 2
      } else if (c === '>') {
        tokens++
        popMode()
        if (mode === 'tagOpen') pushMode('tagText')
        else afterOperand = true
        i++
      } else if (mode === 'tagOpen' && c === '{') {
        tokens++
        pushMode('code')
        i++
      } else if (mode === 'tagOpen' && c === "'") {
        tokens++
        i = quoted(i, "'")
      } else if (TAG_NAME_START.test(c)) {
        tokens++
        while (i < text.length && TAG_NAME_PART.test(text[i]!)) i++
      } else {
        // `=` between an attribute and its value, or what the lexer cannot read here.
        tokens++
        i++
      }
      continue
    }

    if (mode === 'tagText') {
      if (c === '{') {
        tokens++
        pushMode('code')
        i++
      } else if (text.startsWith('</', i)) {
        tokens++
        popMode()
        pushMode('tagClose')
        i += 2
      } else if (c === '<') {
        tokens++
        pushMode('tagOpen')
        i++
      } else {
        const start = i
        while (i < text.length && text[i] !== '<' && text[i] !== '{') i++
        if (text.slice(start, i).trim() !== '') tokens++
      }
      continue
    }

    // Code.
    if (isSpace(c)) {
      i++
      continue
    }
    if (text.startsWith('--', i) || text.startsWith('//', i) || c === '#') {
      while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++
      continue
    }
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2)
      if (end >= 0) {
        i = end + 2
        continue
      }
    }
    tokens++
    if (c === "'" || c === '"' || c === '`') {
      i = quoted(i, c)
      afterOperand = true
      continue
    }
    // Names are read whole, so an `f'` here starts a template even right after a number (`1f'...'`).
    if ((c === 'f' || c === 'F') && text[i + 1] === "'") {
      pushMode(c === 'f' ? 'template' : 'fullTemplate')
      i += 2
      continue
    }
    if (DIGIT.test(c)) {
      while (i < text.length && DIGIT.test(text[i]!)) i++
      afterOperand = true
      continue
    }
    if (IDENTIFIER_START.test(c)) {
      const start = i
      while (i < text.length && IDENTIFIER_PART.test(text[i]!)) i++
      const word = text.slice(start, i).toLowerCase()
      if (word === 'not' && !afterOperand) {
        // `not x`: a prefix, nesting until its operand ends (`a not in b` is one binary operator).
        operators++
        open('prefix')
        afterOperand = false
      } else if (KEYWORD_OPERATORS.has(word)) {
        if (word === 'between') betweens++
        endPrefixes()
        chainOperator()
        afterOperand = false
      } else if (word === 'as') {
        // An alias nests over what it names (`a AS b AS c` is a chain).
        open('prefix')
        afterOperand = false
      } else if (word === 'case') {
        open('case')
        afterOperand = false
      } else if (word === 'end') {
        closeBracket('case')
        afterOperand = true
      } else if (CLAUSES.has(word)) {
        endPrefixes()
        endChain()
        afterOperand = false
      } else if (EXPRESSION_STARTS.has(word)) {
        afterOperand = false
      } else {
        afterOperand = true
      }
      continue
    }
    if (c === '(' || c === '[') {
      // An array access nests like a binary operator: `a[1][1]...` is a chain.
      if (c === '[') chainOperator()
      open(c)
      afterOperand = false
      i++
      continue
    }
    if (c === ')' || c === ']') {
      closeBracket(c === ')' ? '(' : '[')
      afterOperand = true
      i++
      continue
    }
    if (c === '{') {
      pushMode('code')
      afterOperand = false
      i++
      continue
    }
    if (c === '}') {
      popMode()
      afterOperand = true
      i++
      continue
    }
    if (c === '<' && opensTag(text, i)) {
      pushMode('tagOpen')
      i++
      continue
    }
    if (text.startsWith('</', i)) {
      pushMode('tagClose')
      i += 2
      continue
    }
    const punctuation = SYMBOL_STARTS.has(c) ? PUNCTUATION.find((p) => text.startsWith(p, i)) : undefined
    if (punctuation) {
      i += punctuation.length
      afterOperand = false
      continue
    }
    const symbol = SYMBOL_STARTS.has(c) ? OPERATOR_SYMBOLS.find((s) => text.startsWith(s, i)) : undefined
    if (symbol) {
      // A prefix sign nests over its operand, a lambda over its body (`x -> y -> ...`), and `?`
      // over the rest of its conditional (`a ? b : c ? d : ...`).
      if (symbol === '->' || symbol === '?' || ((symbol === '-' || symbol === '+') && !afterOperand)) {
        operators++
        open('prefix')
      } else {
        endPrefixes()
        chainOperator()
      }
      afterOperand = false
      i += symbol.length
      continue
    }
    if (c === '.') {
      // Each step of `a.b.c` or `t.1.2` nests, and costs the parser as much time as a bracket.
      open('prefix')
      afterOperand = false
      i++
      continue
    }
    // A comma, a colon, a semicolon, or a character the lexer has no rule for. (A colon leaves
    // open the `?` before it: the conditional's last part is still to come.)
    if (c === ',' || c === ';') {
      endPrefixes()
      endChain()
    }
    if (c === ',' || c === ';' || c === ':') afterOperand = false
    i++
  }
  return { tokens, operators, chain, depth, betweens }
}

/**
 * Refuses, with a 400 naming the field and the limit, a text the parser must not be given: too
 * long, too many tokens or operators, or nested too deep. `what` names the text in the message
 * ("query", "select[0]"), `attr` the field for the answer's `attr`.
 */
export function checkHogQLBounds(text: string, what: string, attr: string): void {
  const tooMuch = (limit: string) => refused(`The ${what} is too complex to parse: ${limit}. Split it or simplify it.`, { attr })
  if (text.length > MAX_HOGQL_LENGTH) throw refused(`The ${what} is too long: at most ${MAX_HOGQL_LENGTH} characters.`, { attr })
  const shape = measureHogQL(text, HOGQL_LIMITS)
  if (shape.tokens > MAX_HOGQL_TOKENS) throw tooMuch(`it may have at most ${MAX_HOGQL_TOKENS} tokens`)
  if (shape.operators > MAX_HOGQL_OPERATORS) throw tooMuch(`it may have at most ${MAX_HOGQL_OPERATORS} operators`)
  if (shape.chain > MAX_HOGQL_CHAIN)
    throw tooMuch(`an expression may chain at most ${MAX_HOGQL_CHAIN} operators, its levels of nesting included`)
  if (shape.depth > MAX_HOGQL_DEPTH) throw tooMuch(`it may nest at most ${MAX_HOGQL_DEPTH} levels deep`)
  if (shape.betweens > MAX_HOGQL_BETWEENS) throw tooMuch(`it may use BETWEEN at most ${MAX_HOGQL_BETWEENS} times`)
}
