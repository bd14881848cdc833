import createHogQLParser, { type HogQLParser } from '@posthog/hogql-parser'
import type { AstNode } from './ast'
import { refused } from './errors'

let parser: Promise<HogQLParser> | undefined

/** The WebAssembly parser, loaded once per process on first use. */
function loadParser(): Promise<HogQLParser> {
  parser ??= createHogQLParser().catch((err: unknown) => {
    parser = undefined
    throw err
  })
  return parser
}

/** The longest HogQL text accepted, in characters: far above any hand-written query. */
export const MAX_HOGQL_LENGTH = 65_536

type Kind = 'select' | 'expr' | 'order'

/** Parses HogQL text into its syntax tree; a syntax error is a 400 naming where it is. */
export async function parseHogQL(text: string, kind: Kind, what = 'query'): Promise<AstNode> {
  if (text.length > MAX_HOGQL_LENGTH) throw refused(`The ${what} is too long: at most ${MAX_HOGQL_LENGTH} characters.`)
  const p = await loadParser()
  let json: string
  try {
    json = kind === 'select' ? p.parseSelect(text) : kind === 'expr' ? p.parseExpr(text) : p.parseOrderExpr(text)
  } catch (err: unknown) {
    // The parser gives up on input that overflows its own stack (very deep nesting).
    throw refused(`The ${what} could not be parsed.`, { cause: err })
  }
  const ast = JSON.parse(json) as AstNode & { error?: boolean; message?: string; type?: string }
  if (ast.error) {
    const at = (ast.start as { line?: number; column?: number } | undefined) ?? {}
    const where = at.line ? ` (line ${at.line}, column ${(at.column ?? 0) + 1})` : ''
    const message = ast.message?.startsWith('Unsupported: ') ? `Unsupported syntax: ${ast.message.slice(13)}` : ast.message
    throw refused(`${ast.type ?? 'SyntaxError'} in the ${what}${where}: ${message ?? 'invalid syntax'}`)
  }
  return ast
}
