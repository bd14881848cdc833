import type { AstNode } from './ast'
import { checkHogQLBounds } from './bounds'
import { refused } from './errors'
import { ParserPool } from './parserPool'
import type { ParseKind } from './parserProtocol'

let pool: ParserPool | undefined

/** The parser threads of this process, started on first use. */
function parserPool(): ParserPool {
  pool ??= new ParserPool()
  return pool
}

/** `select[0]` as the answer's `attr` names it: `select__0`, as DRF names a list's item. */
const attrOf = (what: string) => what.replace(/\[(\d+)\]/g, '__$1')

/** Where the parser says an error starts: a line from 1 and a column from 0, or (line 0) only an offset into the text. */
interface ParserPosition {
  line?: number
  column?: number
  offset?: number
}

/**
 * Where an error starts, as its message names it: " (line L, column C)", both counted from 1,
 * worked out from the offset when the parser gives no line (as for most syntax errors); nothing
 * when it gives neither.
 */
export function errorPlace(text: string, at: ParserPosition): string {
  if (at.line) return ` (line ${at.line}, column ${(at.column ?? 0) + 1})`
  if (typeof at.offset !== 'number' || at.offset < 0 || at.offset > text.length) return ''
  const before = text.slice(0, at.offset)
  const lineStart = before.lastIndexOf('\n') + 1
  return ` (line ${before.split('\n').length}, column ${at.offset - lineStart + 1})`
}

/**
 * Parses HogQL text into its syntax tree, on a parser thread, after checking the text is within
 * the bounds the parser survives. A syntax error is a 400 naming where it is; a text the parser
 * chokes on (its thread trapped, died or ran past its deadline) is a 400 saying so.
 */
export async function parseHogQL(text: string, kind: ParseKind, what = 'query'): Promise<AstNode> {
  const attr = attrOf(what)
  checkHogQLBounds(text, what, attr)
  const outcome = await parserPool().parse(kind, text)
  if ('failed' in outcome) {
    const cause = new Error(`HogQL parser ${outcome.failed}: ${outcome.message}`)
    if (outcome.failed === 'deadline')
      throw refused(`The ${what} is too complex: it could not be parsed in time. Simplify it.`, { attr, cause })
    throw refused(`The ${what} could not be parsed: it is too complex for the parser. Simplify it.`, { attr, cause })
  }
  const ast = JSON.parse(outcome.json) as AstNode & { error?: boolean; message?: string; type?: string }
  if (ast.error) {
    const where = errorPlace(text, (ast.start as ParserPosition | undefined) ?? {})
    const message = ast.message?.startsWith('Unsupported: ') ? `Unsupported syntax: ${ast.message.slice(13)}` : ast.message
    throw refused(`${ast.type ?? 'SyntaxError'} in the ${what}${where}: ${message ?? 'invalid syntax'}`)
  }
  return ast
}
