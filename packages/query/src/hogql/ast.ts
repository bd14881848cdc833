/**
 * The HogQL syntax tree as `@posthog/hogql-parser` answers it (JSON). Only the fields the printer
 * reads are named; a node of a kind the printer does not know is refused by name.
 */
export interface AstNode {
  node: string
  /** Where the node is in the source, in code points. */
  start?: { offset: number }
  end?: { offset: number }
  [field: string]: unknown
}

export interface FieldNode extends AstNode {
  node: 'Field'
  chain: Array<string | number>
}

export interface JoinExprNode extends AstNode {
  node: 'JoinExpr'
  table: AstNode | null
  alias?: string | null
  join_type?: string | null
  constraint?: { node: 'JoinConstraint'; constraint_type: 'ON' | 'USING'; expr: AstNode } | null
  next_join?: JoinExprNode | null
  table_args?: AstNode[] | null
  table_final?: boolean | null
  sample?: AstNode | null
}

export interface SelectQueryNode extends AstNode {
  node: 'SelectQuery'
  select: AstNode[]
  select_from?: JoinExprNode | null
  where?: AstNode | null
  prewhere?: AstNode | null
  having?: AstNode | null
  group_by?: AstNode[] | null
  order_by?: AstNode[] | null
  limit?: AstNode | null
  offset?: AstNode | null
  limit_by?: AstNode | null
  limit_with_ties?: boolean | null
  distinct?: boolean | null
  ctes?: AstNode[] | null
  array_join_op?: string | null
  array_join_list?: AstNode[] | null
  window_exprs?: unknown
  qualify?: AstNode | null
}

interface SelectSetQueryNode extends AstNode {
  node: 'SelectSetQuery'
  initial_select_query: AstNode
  subsequent_select_queries: Array<{ node: 'SelectSetNode'; select_query: AstNode; set_operator: string }>
  limit?: AstNode | null
  offset?: AstNode | null
}

export const isSelect = (n: AstNode): n is SelectQueryNode => n.node === 'SelectQuery'
export const isSelectSet = (n: AstNode): n is SelectSetQueryNode => n.node === 'SelectSetQuery'
export const isField = (n: AstNode): n is FieldNode => n.node === 'Field'

/** Conditions that must all hold, as one node. */
export const and = (exprs: AstNode[]): AstNode => (exprs.length === 1 ? exprs[0]! : { node: 'And', exprs })
