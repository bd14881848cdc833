import type { AstNode } from './ast'
import { refused } from './errors'

const MAX_NODES = 100_000

/** A JSON value as a HogQL constant (lists as arrays). */
export function valueToAst(value: unknown, name: string): AstNode {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return { node: 'Constant', value }
  if (typeof value === 'number' && Number.isFinite(value)) return { node: 'Constant', value }
  if (Array.isArray(value)) return { node: 'Array', exprs: value.map((v) => valueToAst(v, name)) }
  throw refused(`The value of {${name}} must be a string, a number, a boolean, null or a list of them.`, { attr: 'values' })
}

/**
 * The tree with each `{name}` replaced by what `resolve` answers for it; also bounds the tree's
 * size, since everything after this walks it.
 */
export function replacePlaceholders(ast: AstNode, resolve: (name: string) => AstNode | undefined): AstNode {
  let nodes = 0
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk)
    if (value === null || typeof value !== 'object') return value
    if (++nodes > MAX_NODES) throw refused('The query is too large.')
    const node = value as AstNode
    if (node.node === 'Placeholder') {
      const expr = node.expr as AstNode
      const name = expr.node === 'Field' ? (expr.chain as unknown[]).join('.') : undefined
      const replacement = name !== undefined ? resolve(name) : undefined
      if (!replacement) throw refused(`Unknown placeholder {${name ?? '...'}}: pass its value in "values".`)
      return replacement
    }
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(node)) out[k] = k === 'start' || k === 'end' ? v : walk(v)
    return out
  }
  return walk(ast) as AstNode
}
