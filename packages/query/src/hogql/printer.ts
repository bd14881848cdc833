import { isField, isSelect, isSelectSet, type AstNode, type FieldNode, type JoinExprNode, type SelectQueryNode } from './ast'
import { refused } from './errors'
import { findFunction } from './functions'
import { PERSON_FIELDS, TABLES, type TableField, type TableNeeds, type VirtualTable } from './tables'

/** Rows a query answers when it names no LIMIT, and the most it may ask for (PostHog's). */
export const DEFAULT_LIMIT = 100
export const MAX_LIMIT = 50_000

/** The aggregates of numbers (ClickHouse's names): a JSON property given to one is read as a number. */
const NUMERIC_AGGREGATES = new Set([
  'sum',
  'avg',
  'median',
  'quantile',
  'quantiles',
  'quantileExact',
  'stddevPop',
  'stddevSamp',
  'varPop',
  'varSamp',
])

/** How deep expressions and subqueries may nest before the query is refused (the printer recurses). */
const MAX_DEPTH = 256
/** How many expressions one query may print to: a named subquery is printed at each use, so uses of uses multiply. */
const MAX_PRINTED = 50_000

export interface PrintOptions {
  teamId: number
  /** The project's IANA timezone: timestamps are read in it. */
  timezone: string
  /** The source text, to name unaliased columns as they were written. */
  source?: string
  /** Names the printed parameters start with, so that several printed expressions can share one statement. */
  paramPrefix?: string
  /**
   * The event properties with a column of their own in the events the query reads (key to
   * column): `properties.<key>` reads that column, as PostHog reads a materialised property.
   */
  propertyColumns?: ReadonlyMap<string, string>
}

export interface PrintedQuery {
  sql: string
  params: Record<string, unknown>
  /** The column names of the answer, in order. */
  columns: string[]
  /** The rows asked for (LIMIT), and the rows skipped (OFFSET); the SQL asks for one more, to know if there are more. */
  limit: number
  offset: number
}

/** A table in a FROM clause, under the name the query calls it by. */
type Source =
  | {
      kind: 'table'
      table: VirtualTable
      alias: string
      needs: TableNeeds
      /** How a column of the table is read, when the table is a runner's own subquery rather than one printed here. */
      columnSql?: (column: string) => string
    }
  | { kind: 'subquery'; alias: string; columns: Array<string | null> }

interface Scope {
  sources: Map<string, Source>
  /** Aliases the SELECT list and ARRAY JOIN define, usable elsewhere in the query. */
  aliases: Set<string>
  /** Lambda arguments in reach. */
  lambdaArgs: Set<string>
  /** Named subqueries (WITH name AS (...)) in reach. */
  ctes: Map<string, AstNode>
}

const ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '`': '\\`',
  '\b': '\\b',
  '\f': '\\f',
  '\r': '\\r',
  '\n': '\\n',
  '\t': '\\t',
  '\0': '\\0',
  '\x07': '\\a',
  '\v': '\\v',
}

/** A name as a ClickHouse identifier, quoted so that no name can end it. */
function identifier(name: string): string {
  // eslint-disable-next-line no-control-regex -- the control characters are what is escaped
  return `\`${name.replace(/[\\`\b\f\r\n\t\0\x07\v]/g, (c) => ESCAPES[c]!)}\``
}

const COMPARISONS: Record<string, string> = {
  '==': 'equals',
  '!=': 'notEquals',
  '<': 'less',
  '>': 'greater',
  '<=': 'lessOrEquals',
  '>=': 'greaterOrEquals',
  like: 'like',
  ilike: 'ilike',
  'not like': 'notLike',
  'not ilike': 'notILike',
}

const ARITHMETIC: Record<string, string> = { '+': 'plus', '-': 'minus', '*': 'multiply', '/': 'divide', '%': 'modulo' }

/** `x::type` as the HogQL function it stands for. */
const CASTS: Record<string, string> = {
  int: 'toInt',
  integer: 'toInt',
  float: 'toFloat',
  string: 'toString',
  text: 'toString',
  bool: 'toBool',
  boolean: 'toBool',
  date: 'toDate',
  datetime: 'toDateTime',
  uuid: 'toUUID',
}

const JOIN_TYPE = /^(?:(?:LEFT|RIGHT|FULL|INNER|CROSS)(?: OUTER)?(?: (?:ANY|ALL|SEMI|ANTI|ASOF))?(?: )?)?JOIN$/
const SET_OPERATORS = new Set(['UNION ALL', 'UNION DISTINCT', 'INTERSECT', 'INTERSECT DISTINCT', 'EXCEPT', 'EXCEPT DISTINCT'])

/** Text that names a node in an error: the expression as written, or its kind. */
function describe(node: AstNode, source: readonly string[] | undefined): string {
  if (source && node.start && node.end) return source.slice(node.start.offset, node.end.offset).join('')
  if (isField(node)) return node.chain.join('.')
  return node.node
}

/**
 * Prints a HogQL SELECT as ClickHouse SQL for one project: every table is the project's (see
 * tables.ts), every function comes from the allow-list, every string travels as a parameter, and
 * every name is quoted. Anything else is refused with a 400 naming it.
 */
class HogQLPrinter {
  private readonly params: Record<string, unknown> = {}
  /** The reads of a property (from JSON text or its own column) printed so far: text, a number where one is needed. */
  private readonly propertyReads = new Set<string>()
  private next = 0
  private subqueries = 0
  private depth = 0
  private printed = 0
  private readonly team: string
  private readonly tz: string

  /** The source as code points: the parser's offsets count code points, not UTF-16 units. */
  private readonly sourceText: readonly string[] | undefined

  constructor(private readonly options: PrintOptions) {
    this.sourceText = options.source === undefined ? undefined : Array.from(options.source)
    if (!Number.isSafeInteger(options.teamId)) throw new Error('teamId must be an integer')
    this.team = this.param('Int64', options.teamId)
    // A timezone is one of the project's settings (an IANA name), not user text: printed as a literal
    // because functions such as toTimeZone take a constant.
    if (!/^[A-Za-z0-9_+\-/]{1,64}$/.test(options.timezone)) throw new Error(`invalid timezone ${options.timezone}`)
    this.tz = `'${options.timezone}'`
  }

  private param(type: string, value: unknown): string {
    const name = `${this.options.paramPrefix ?? 'hogql_val_'}${this.next++}`
    this.params[name] = value
    return `{${name}:${type}}`
  }

  /** The top-level query with its LIMIT and OFFSET bounded; `extra.defaultLimit` replaces the default of 100 rows. */
  printQuery(ast: AstNode, extra: { defaultLimit?: number } = {}): PrintedQuery {
    if (!isSelect(ast) && !isSelectSet(ast)) throw refused('Only SELECT queries can be run.')
    const limitNode = ast.limit ?? null
    const offsetNode = ast.offset ?? null
    const limit = Math.min(limitNode ? this.integer(limitNode, 'LIMIT') : (extra.defaultLimit ?? DEFAULT_LIMIT), MAX_LIMIT)
    const offset = offsetNode ? this.integer(offsetNode, 'OFFSET') : 0
    const withoutPaging = { ...ast, limit: null, offset: null }
    const printed = isSelect(withoutPaging)
      ? this.selectQuery(withoutPaging, new Map(), { topLevel: true })
      : this.selectSet(withoutPaging, new Map(), true)
    // One row more than asked for tells whether there are more.
    const paging = `LIMIT ${limit + 1}${offset > 0 ? ` OFFSET ${offset}` : ''}`
    const sql = isSelect(withoutPaging) ? `${printed.sql} ${paging}` : `SELECT * FROM (${printed.sql}) ${paging}`
    return { sql, params: this.params, columns: printed.columns.map((c, i) => c ?? `column_${i}`), limit, offset }
  }

  /** One expression over the rows of `table`, each column read as `columnSql` says; answers which person joins it read. */
  printExpression(
    ast: AstNode,
    table: VirtualTable,
    columnSql: (column: string) => string,
  ): { sql: string; params: Record<string, unknown>; needs: TableNeeds } {
    const needs: TableNeeds = { personId: false, person: false }
    const source: Source = { kind: 'table', table, alias: table.name, needs, columnSql }
    const scope: Scope = { sources: new Map([[table.name, source]]), aliases: new Set(), lambdaArgs: new Set(), ctes: new Map() }
    return { sql: this.expr(ast, scope), params: this.params, needs }
  }

  private integer(node: AstNode, what: string): number {
    const value = node.node === 'Constant' ? node.value : undefined
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw refused(`${what} must be a whole number.`)
    return value
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) throw refused('The query is nested too deeply.')
    if (++this.printed > MAX_PRINTED) throw refused('The query is too large once its named subqueries (WITH) are written out.')
  }

  // ---- SELECT ------------------------------------------------------------------------------

  private selectSet(node: AstNode, ctes: Map<string, AstNode>, topLevel = false): { sql: string; columns: Array<string | null> } {
    if (isSelect(node)) return this.selectQuery(node, ctes, { topLevel })
    if (!isSelectSet(node)) throw refused(`Expected a SELECT, found ${node.node}.`)
    if (!topLevel && (node.limit || node.offset)) {
      const inner = this.selectSet({ ...node, limit: null, offset: null }, ctes)
      const limit = node.limit ? ` LIMIT ${this.integer(node.limit, 'LIMIT')}` : ''
      const offset = node.offset ? ` OFFSET ${this.integer(node.offset, 'OFFSET')}` : ''
      return { sql: `SELECT * FROM (${inner.sql})${limit}${offset}`, columns: inner.columns }
    }
    const first = this.selectSet(node.initial_select_query, ctes, topLevel)
    const parts = [`(${first.sql})`]
    for (const next of node.subsequent_select_queries) {
      if (!SET_OPERATORS.has(next.set_operator)) throw refused(`Unsupported set operator: ${next.set_operator}.`)
      parts.push(next.set_operator, `(${this.selectSet(next.select_query, ctes).sql})`)
    }
    return { sql: parts.join(' '), columns: first.columns }
  }

  private selectQuery(
    q: SelectQueryNode,
    outerCtes: Map<string, AstNode>,
    { topLevel = false }: { topLevel?: boolean } = {},
  ): { sql: string; columns: Array<string | null> } {
    this.enter()
    if (q.prewhere) throw refused('PREWHERE is not supported.')
    if (q.qualify) throw refused('QUALIFY is not supported.')
    if (q.window_exprs && Object.keys(q.window_exprs).length > 0) throw refused('Named windows (WINDOW ... AS) are not supported.')
    const ctes = new Map(outerCtes)
    for (const cte of q.ctes ?? []) {
      const name = cte.name as string
      if (cte.cte_type !== 'subquery') throw refused(`WITH ${name}: only subqueries may be named in WITH.`)
      ctes.set(name, cte.expr as AstNode)
    }
    const scope: Scope = { sources: new Map(), aliases: new Set(), lambdaArgs: new Set(), ctes }
    const joins = this.collectSources(q.select_from ?? null, scope)

    for (const item of q.select) if (item.node === 'Alias') scope.aliases.add(item.alias as string)
    const arrayJoin: string[] = []
    if (q.array_join_list && q.array_join_list.length > 0) {
      if (!/^(LEFT |INNER )?ARRAY JOIN$/.test(q.array_join_op ?? '')) throw refused(`Unsupported ${q.array_join_op ?? 'ARRAY JOIN'}.`)
      for (const item of q.array_join_list) {
        if (item.node !== 'Alias') throw refused('Each ARRAY JOIN expression needs an alias (ARRAY JOIN x AS y).')
        scope.aliases.add(item.alias as string)
      }
      for (const item of q.array_join_list)
        arrayJoin.push(`${this.expr(item.expr as AstNode, scope)} AS ${identifier(item.alias as string)}`)
    }

    const columns: Array<string | null> = []
    const select: string[] = []
    const used = new Set<string>(scope.aliases)
    for (const item of q.select) {
      if (isField(item) && item.chain[item.chain.length - 1] === '*') {
        for (const star of this.expandStar(item, scope)) {
          const name = used.has(star.name) ? null : star.name
          if (name) used.add(name)
          select.push(name ? `${star.sql} AS ${identifier(name)}` : star.sql)
          columns.push(star.name)
        }
        continue
      }
      const sql = this.expr(item, scope)
      if (item.node === 'Alias') {
        columns.push(item.alias as string)
        select.push(sql)
      } else if (isField(item) && !used.has(String(item.chain[item.chain.length - 1]))) {
        // A field is named by its last part, as ClickHouse and PostHog name it (`properties.$browser` is `$browser`).
        const name = String(item.chain[item.chain.length - 1])
        used.add(name)
        columns.push(name)
        select.push(`${sql} AS ${identifier(name)}`)
      } else {
        columns.push(topLevel ? describe(item, this.sourceText) : null)
        select.push(sql)
      }
    }
    if (select.length === 0) throw refused('A SELECT needs at least one column.')

    const clauses: string[] = []
    const where = q.where ? this.expr(q.where, scope) : undefined
    const groupBy = q.group_by?.map((e) => this.expr(e, scope))
    const having = q.having ? this.expr(q.having, scope) : undefined
    const orderBy = q.order_by?.map((e) => this.orderExpr(e, scope))
    let limitBy: string | undefined
    if (q.limit_by) {
      const lb = q.limit_by
      const n = this.integer(lb.n as AstNode, 'LIMIT BY')
      const off = lb.offset_value ? ` OFFSET ${this.integer(lb.offset_value as AstNode, 'LIMIT BY OFFSET')}` : ''
      limitBy = `LIMIT ${n}${off} BY ${(lb.exprs as AstNode[]).map((e) => this.expr(e, scope)).join(', ')}`
    }
    // Printed last: the expressions above decide which joins each table needs.
    const from = joins(scope)

    clauses.push(`SELECT ${q.distinct ? 'DISTINCT ' : ''}${select.join(', ')}`)
    if (from) clauses.push(`FROM ${from}`)
    if (arrayJoin.length > 0) clauses.push(`${q.array_join_op} ${arrayJoin.join(', ')}`)
    if (where) clauses.push(`WHERE ${where}`)
    if (groupBy && groupBy.length > 0) clauses.push(`GROUP BY ${groupBy.join(', ')}`)
    if (having) clauses.push(`HAVING ${having}`)
    if (orderBy && orderBy.length > 0) clauses.push(`ORDER BY ${orderBy.join(', ')}`)
    if (limitBy) clauses.push(limitBy)
    if (q.limit) clauses.push(`LIMIT ${this.integer(q.limit, 'LIMIT')}${q.limit_with_ties ? ' WITH TIES' : ''}`)
    if (q.offset) clauses.push(`OFFSET ${this.integer(q.offset, 'OFFSET')}`)
    this.depth--
    return { sql: clauses.join(' '), columns }
  }

  /**
   * Registers the FROM clause's tables in the scope and answers a function printing the clause,
   * called once the rest of the query has said which joins the tables need.
   */
  private collectSources(first: JoinExprNode | null, scope: Scope): (scope: Scope) => string {
    const items: Array<{ join: JoinExprNode; source: Source; print: () => string }> = []
    for (let join: JoinExprNode | null | undefined = first; join; join = join.next_join) {
      const { source, print } = this.source(join, scope)
      if (scope.sources.has(source.alias)) throw refused(`The table alias "${source.alias}" is used twice; give each table its own alias.`)
      scope.sources.set(source.alias, source)
      items.push({ join, source, print })
    }
    return (s) => {
      // The join conditions first: they too decide which joins a table needs.
      const constraints = items.map(({ join }, i) => {
        if (i === 0) return ''
        const type = join.join_type ?? 'JOIN'
        if (!JOIN_TYPE.test(type)) throw refused(`Unsupported join: ${type}.`)
        if (join.constraint) {
          if (join.constraint.constraint_type === 'ON') return ` ON ${this.expr(join.constraint.expr, s)}`
          return ` USING ${this.usingList(join.constraint.expr)}`
        }
        if (!type.startsWith('CROSS')) throw refused(`${type} needs an ON or USING clause.`)
        return ''
      })
      return items
        .map(({ join, source, print }, i) => {
          const table = `(${print()}) AS ${identifier(source.alias)}`
          return i === 0 ? table : `${join.join_type ?? 'JOIN'} ${table}${constraints[i]}`
        })
        .join(' ')
    }
  }

  private usingList(expr: AstNode): string {
    const fields = expr.node === 'Tuple' ? (expr.exprs as AstNode[]) : [expr]
    return fields
      .map((f) => {
        if (!isField(f) || f.chain.length !== 1) throw refused('USING takes column names.')
        return identifier(String(f.chain[0]))
      })
      .join(', ')
  }

  private source(join: JoinExprNode, scope: Scope): { source: Source; print: () => string } {
    if (join.table_args) {
      const name = join.table && isField(join.table) ? join.table.chain.join('.') : 'a table function'
      throw refused(`Table functions are not allowed: ${name}(...). Query events, persons, person_distinct_ids or cohort_people.`)
    }
    if (join.table_final) throw refused('FINAL is not supported.')
    if (join.sample) throw refused('SAMPLE is not supported.')
    const table = join.table
    if (!table) throw refused('A FROM clause needs a table.')
    if (isField(table)) {
      const name = table.chain.map(String).join('.')
      const cte = table.chain.length === 1 ? scope.ctes.get(name) : undefined
      if (cte) {
        // A named subquery is printed in full where it is used, so each use is scoped like any other.
        const alias = join.alias ?? name
        const ctes = new Map(scope.ctes)
        ctes.delete(name)
        const printed = this.selectSet(cte, ctes)
        return { source: { kind: 'subquery', alias, columns: printed.columns }, print: () => printed.sql }
      }
      const virtual = table.chain.length === 1 ? TABLES.get(name) : undefined
      if (!virtual) throw refused(`Unknown table "${name}". Query events, persons, person_distinct_ids or cohort_people.`)
      const source: Source = { kind: 'table', table: virtual, alias: join.alias ?? name, needs: { personId: false, person: false } }
      return { source, print: () => virtual.sql(source.needs, this.team, this.tz) }
    }
    if (isSelect(table) || isSelectSet(table)) {
      const printed = this.selectSet(table, scope.ctes)
      const alias = join.alias ?? `__subquery_${this.subqueries++}`
      return { source: { kind: 'subquery', alias, columns: printed.columns }, print: () => printed.sql }
    }
    throw refused(`Unsupported table expression: ${table.node}.`)
  }

  private expandStar(item: FieldNode, scope: Scope): Array<{ sql: string; name: string }> {
    let sources: Source[]
    if (item.chain.length === 1) sources = [...scope.sources.values()]
    else {
      const named = item.chain.length === 2 ? scope.sources.get(String(item.chain[0])) : undefined
      if (!named) throw refused(`Unable to resolve field: ${item.chain.join('.')}`)
      sources = [named]
    }
    if (sources.length === 0) throw refused('SELECT * needs a FROM clause.')
    const out: Array<{ sql: string; name: string }> = []
    for (const s of sources) {
      if (s.kind === 'table') {
        for (const name of s.table.star) out.push({ sql: this.tableField(s, [name]), name })
      } else {
        for (const name of s.columns) {
          if (name !== null) out.push({ sql: `${identifier(s.alias)}.${identifier(name)}`, name })
        }
      }
    }
    return out
  }

  // ---- names -------------------------------------------------------------------------------

  private field(node: FieldNode, scope: Scope): string {
    const chain = node.chain.map(String)
    const head = chain[0]!
    if (chain.length === 1 && scope.lambdaArgs.has(head)) return identifier(head)
    const named = scope.sources.get(head)
    if (named && chain.length > 1) return this.sourceField(named, chain.slice(1), chain)
    if (chain.length === 1 && scope.aliases.has(head)) return identifier(head)
    const owners = [...scope.sources.values()].filter((s) =>
      s.kind === 'table' ? Object.hasOwn(s.table.fields, head) : s.columns.includes(head),
    )
    if (owners.length === 0) {
      if (named) throw refused(`"${head}" is a table: name one of its fields, as ${head}.<field>.`)
      throw refused(`Unable to resolve field: ${chain.join('.')}`)
    }
    if (owners.length > 1) {
      throw refused(
        `Ambiguous field "${head}": it is in ${owners.map((o) => o.alias).join(' and ')}; name the table, as ${owners[0]!.alias}.${head}.`,
      )
    }
    return this.sourceField(owners[0]!, chain, chain)
  }

  private sourceField(source: Source, rest: string[], chain: string[]): string {
    if (source.kind === 'subquery') {
      const column = `${identifier(source.alias)}.${identifier(rest[0]!)}`
      if (!source.columns.includes(rest[0]!)) throw refused(`Unable to resolve field: ${chain.join('.')}`)
      return rest.length === 1 ? column : this.jsonPath(column, rest.slice(1))
    }
    return this.tableField(source, rest, chain)
  }

  private tableField(source: Extract<Source, { kind: 'table' }>, rest: string[], chain: string[] = rest): string {
    const [name, ...path] = rest as [string, ...string[]]
    const def: TableField | undefined = Object.hasOwn(source.table.fields, name) ? source.table.fields[name] : undefined
    if (!def) throw refused(`Unable to resolve field: ${chain.join('.')}`)
    const qualified = source.columnSql ?? ((column: string) => `${identifier(source.alias)}.${identifier(column)}`)
    if (def.kind === 'person') {
      const [personField, ...personPath] = path
      const personDef = personField !== undefined && Object.hasOwn(PERSON_FIELDS, personField) ? PERSON_FIELDS[personField] : undefined
      if (!personDef)
        throw refused(`Unable to resolve field: ${chain.join('.')}. A person has id, properties, created_at and is_identified.`)
      if (personField === 'id') source.needs.personId = true
      else source.needs.person = true
      return this.columnPath(personDef, qualified, personPath, chain)
    }
    if (name === 'person_id') source.needs.personId = true
    const own =
      def.kind === 'json' && def.column === 'properties' && path.length === 1 ? this.options.propertyColumns?.get(path[0]!) : undefined
    if (own !== undefined) {
      // The column holds strings unquoted and other values as JSON; PostHog reads '' and 'null' there as no value.
      const printed = `nullIf(nullIf(${qualified(own)}, ''), 'null')`
      this.propertyReads.add(printed)
      return printed
    }
    return this.columnPath(def, qualified, path, chain)
  }

  private columnPath(def: TableField, qualified: (c: string) => string, path: string[], chain: string[]): string {
    if (def.kind === 'person') throw refused(`Unable to resolve field: ${chain.join('.')}`)
    if (path.length === 0) return qualified(def.column)
    if (def.kind !== 'json') throw refused(`Unable to resolve field: ${chain.join('.')}: ${def.column} has no fields.`)
    return this.jsonPath(qualified(def.column), path)
  }

  /**
   * A key of JSON text as PostHog reads one: a string as its decoded text (`\t` as a tab), any other
   * value as its JSON, null when absent or null.
   */
  private jsonPath(column: string, path: string[]): string {
    const keys = path.map((k) => this.param('String', k)).join(', ')
    const printed = `if(JSONType(${column}, ${keys}) = 'String', JSONExtractString(${column}, ${keys}), nullIf(nullIf(JSONExtractRaw(${column}, ${keys}), ''), 'null'))`
    this.propertyReads.add(printed)
    return printed
  }

  // ---- expressions -------------------------------------------------------------------------

  private orderExpr(node: AstNode, scope: Scope): string {
    if (node.node !== 'OrderExpr') return this.expr(node, scope)
    const order = node.order === 'DESC' ? 'DESC' : 'ASC'
    return `${this.expr(node.expr as AstNode, scope)} ${order}`
  }

  private exprs(nodes: unknown, scope: Scope): string[] {
    return ((nodes as AstNode[] | null) ?? []).map((n) => this.expr(n, scope))
  }

  private expr(node: AstNode, scope: Scope): string {
    this.enter()
    try {
      return this.exprInner(node, scope)
    } finally {
      this.depth--
    }
  }

  private exprInner(node: AstNode, scope: Scope): string {
    switch (node.node) {
      case 'Constant':
        return this.constant(node)
      case 'Field':
        return this.field(node as FieldNode, scope)
      case 'Alias':
        return `(${this.expr(node.expr as AstNode, scope)}) AS ${identifier(node.alias as string)}`
      case 'ArithmeticOperation': {
        const fn = ARITHMETIC[node.op as string]
        if (!fn) throw refused(`Unsupported operator: ${String(node.op)}.`)
        return `${fn}(${this.numeric(node.left as AstNode, scope)}, ${this.numeric(node.right as AstNode, scope)})`
      }
      case 'CompareOperation':
        return this.comparison(node, scope)
      case 'And':
      case 'Or': {
        const parts = this.exprs(node.exprs, scope)
        if (parts.length === 1) return parts[0]!
        return `${node.node === 'And' ? 'and' : 'or'}(${parts.join(', ')})`
      }
      case 'Not':
        return `not(${this.expr(node.expr as AstNode, scope)})`
      case 'Array':
        return `[${this.exprs(node.exprs, scope).join(', ')}]`
      case 'Tuple':
        return `tuple(${this.exprs(node.exprs, scope).join(', ')})`
      case 'ArrayAccess':
        return `arrayElement(${this.expr(node.array as AstNode, scope)}, ${this.expr(node.property as AstNode, scope)})`
      case 'TupleAccess': {
        const index = node.index
        if (typeof index !== 'number' || !Number.isSafeInteger(index)) throw refused('A tuple index must be a whole number.')
        return `tupleElement(${this.expr(node.tuple as AstNode, scope)}, ${index})`
      }
      case 'BetweenExpr':
        return `(${this.expr(node.expr as AstNode, scope)} ${node.negated ? 'NOT ' : ''}BETWEEN ${this.expr(node.low as AstNode, scope)} AND ${this.expr(node.high as AstNode, scope)})`
      case 'TypeCast': {
        const cast = CASTS[String(node.type_name).toLowerCase()]
        if (!cast) throw refused(`Unsupported type in a cast: ${String(node.type_name)}.`)
        return this.call({ node: 'Call', name: cast, args: [node.expr] }, scope)
      }
      case 'Call':
        return this.call(node, scope)
      case 'WindowFunction':
        return this.windowFunction(node, scope)
      case 'Lambda': {
        const args = node.args as string[]
        const inner: Scope = { ...scope, lambdaArgs: new Set([...scope.lambdaArgs, ...args]) }
        return `(${args.map(identifier).join(', ')}) -> ${this.expr(node.expr as AstNode, inner)}`
      }
      case 'SelectQuery':
      case 'SelectSetQuery':
        return `(${this.selectSet(node, scope.ctes).sql})`
      case 'Placeholder':
        throw refused(`Unknown placeholder {${describe(node.expr as AstNode, undefined)}}: pass its value in "values".`)
      default:
        throw refused(`Unsupported syntax: ${node.node}.`)
    }
  }

  private constant(node: AstNode): string {
    const value = node.value
    if (value === null || value === undefined) return 'NULL'
    if (typeof value === 'boolean') return value ? 'true' : 'false'
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw refused('Numbers must be finite.')
      return Number.isInteger(value) && !Number.isSafeInteger(value) ? this.param('Float64', value) : String(value)
    }
    if (typeof value === 'string') {
      // Integers too large for a double arrive as text.
      if (node.value_type === 'number') {
        if (!/^-?\d{1,40}$/.test(value)) throw refused(`Invalid number: ${value.slice(0, 50)}.`)
        return value
      }
      return this.param('String', value)
    }
    throw refused('Unsupported constant.')
  }

  private comparison(node: AstNode, scope: Scope): string {
    const op = String(node.op)
    const left = node.left as AstNode
    const right = node.right as AstNode
    const isNull = (n: AstNode) => n.node === 'Constant' && n.value === null
    if ((op === '==' || op === '!=') && (isNull(right) || isNull(left))) {
      const other = isNull(right) ? left : right
      return `${op === '==' ? 'isNull' : 'isNotNull'}(${this.expr(other, scope)})`
    }
    const l = this.expr(left, scope)
    if (op === 'in' || op === 'not in' || op === 'global in' || op === 'global not in') {
      let r: string
      if (isSelect(right) || isSelectSet(right)) r = `(${this.selectSet(right, scope.ctes).sql})`
      else if (right.node === 'Tuple') r = this.expr(right, scope)
      else if (right.node === 'Array') r = `tuple(${this.exprs(right.exprs, scope).join(', ')})`
      else r = `tuple(${this.expr(right, scope)})`
      return `(${l} ${op.includes('not') ? 'NOT IN' : 'IN'} ${r})`
    }
    if (op === 'in cohort' || op === 'not in cohort') throw refused('IN COHORT is not supported: join cohort_people instead.')
    const r = this.expr(right, scope)
    const fn = COMPARISONS[op]
    if (fn) return `${fn}(${l}, ${r})`
    switch (op) {
      case '=~':
        return `match(${l}, ${r})`
      case '!~':
        return `not(match(${l}, ${r}))`
      case '=~*':
        return `match(${l}, concat('(?i)', ${r}))`
      case '!~*':
        return `not(match(${l}, concat('(?i)', ${r})))`
      default:
        throw refused(`Unsupported comparison: ${op}.`)
    }
  }

  private call(node: AstNode, scope: Scope): string {
    const name = String(node.name)
    const found = findFunction(name)
    if (!found) throw refused(`Unsupported function: ${name}. Only the functions listed in the HogQL documentation may be called.`)
    const args = (node.args as AstNode[] | null) ?? []
    const filter = node.filter_expr as AstNode | null | undefined
    const total = args.length + (filter ? 1 : 0)
    if (total < found.spec.min || total > found.spec.max) {
      const expected = found.spec.min === found.spec.max ? `${found.spec.min}` : `${found.spec.min} to ${found.spec.max}`
      throw refused(`Function ${name} takes ${expected} argument${expected === '1' ? '' : 's'}, found ${total}.`)
    }
    if (found.kind === 'window') throw refused(`Function ${name} needs a window: ${name}(...) OVER (...).`)
    const params = node.params as AstNode[] | null | undefined
    let printedParams = ''
    if (params && params.length > 0) {
      if (found.kind !== 'aggregate') throw refused(`Function ${name} takes no parameters.`)
      printedParams = `(${params.map((p) => this.numberParam(p, name)).join(', ')})`
    }
    const distinct = node.distinct ? 'DISTINCT ' : ''
    if (distinct && found.kind !== 'aggregate') throw refused(`DISTINCT applies to aggregate functions, not ${name}.`)
    let ch = found.spec.clickhouse
    // count(*) counts rows, as count() does.
    const countAll = ch === 'count' && args.length === 1 && isField(args[0]!) && args[0].chain.length === 1 && args[0].chain[0] === '*'
    // Of an aggregate of numbers, the value (the first argument; an If form's last one is its condition).
    const numericFirst = NUMERIC_AGGREGATES.has(ch) || (ch.endsWith('If') && NUMERIC_AGGREGATES.has(ch.slice(0, -2)))
    const printedArgs = countAll ? [] : args.map((a, i) => (numericFirst && i === 0 ? this.numeric(a, scope) : this.expr(a, scope)))
    if (filter) {
      // count() FILTER (WHERE x) is countIf(x): the condition becomes the last argument of the If form.
      if (found.kind !== 'aggregate' || ch.endsWith('If')) throw refused(`FILTER applies to aggregate functions, not ${name}.`)
      ch = `${ch}If`
      printedArgs.push(this.expr(filter, scope))
    }
    if (ch === 'now64') return `now64(6, ${this.tz})`
    if (ch === 'parseDateTime64BestEffortOrNull') return `parseDateTime64BestEffortOrNull(toString(${printedArgs[0]}), 6, ${this.tz})`
    return `${ch}${printedParams}(${distinct}${printedArgs.join(', ')})`
  }

  private numberParam(node: AstNode, name: string): string {
    if (node.node !== 'Constant' || typeof node.value !== 'number' || !Number.isFinite(node.value)) {
      throw refused(`The parameters of ${name}(...)(...) must be numbers.`)
    }
    return String(node.value)
  }

  /**
   * An operand that must be a number. A property read from JSON is text; PostHog reads a property
   * its definitions call numeric as a number (`toFloat`), and here every property used as a number is.
   */
  private numeric(node: AstNode, scope: Scope): string {
    const printed = this.expr(node, scope)
    return isField(node) && this.propertyReads.has(printed) ? `toFloat64OrNull(${printed})` : printed
  }

  private windowFunction(node: AstNode, scope: Scope): string {
    const name = String(node.name)
    const found = findFunction(name)
    if (!found || found.kind === 'scalar') throw refused(`Unsupported window function: ${name}.`)
    if (node.over_identifier) throw refused('Named windows (OVER name) are not supported.')
    const args = [...this.exprs(node.args, scope), ...this.exprs(node.exprs, scope)]
    if (args.length < found.spec.min || args.length > found.spec.max)
      throw refused(`Function ${name} takes ${found.spec.min} to ${found.spec.max} arguments.`)
    const over = node.over_expr as AstNode | null | undefined
    const parts: string[] = []
    if (over) {
      const partition = this.exprs(over.partition_by, scope)
      if (partition.length > 0) parts.push(`PARTITION BY ${partition.join(', ')}`)
      const order = ((over.order_by as AstNode[] | null) ?? []).map((o) => this.orderExpr(o, scope))
      if (order.length > 0) parts.push(`ORDER BY ${order.join(', ')}`)
      if (over.frame_method) {
        const method = over.frame_method === 'RANGE' ? 'RANGE' : 'ROWS'
        const start = this.frame(over.frame_start as AstNode)
        parts.push(over.frame_end ? `${method} BETWEEN ${start} AND ${this.frame(over.frame_end as AstNode)}` : `${method} ${start}`)
      }
    }
    return `${found.spec.clickhouse}(${args.join(', ')}) OVER (${parts.join(' ')})`
  }

  private frame(node: AstNode): string {
    const type = String(node.frame_type)
    if (type === 'CURRENT ROW') return 'CURRENT ROW'
    if (type !== 'PRECEDING' && type !== 'FOLLOWING') throw refused(`Unsupported window frame: ${type}.`)
    const value = node.frame_value
    if (value === null || value === undefined) return `UNBOUNDED ${type}`
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
      throw refused('A window frame bound must be a whole number.')
    return `${value} ${type}`
  }
}

/** Prints a parsed top-level query for one project. */
export function printHogQL(ast: AstNode, options: PrintOptions & { defaultLimit?: number }): PrintedQuery {
  return new HogQLPrinter(options).printQuery(ast, options.defaultLimit !== undefined ? { defaultLimit: options.defaultLimit } : {})
}

/**
 * Prints one parsed expression over an event (`properties.$browser`, `person.properties.email`)
 * for a runner's own statement over the events: each field of the events table is read as
 * `columnSql` says, subqueries in it are guarded by the project as every query's are, and its
 * parameters are named with `options.paramPrefix`.
 */
export function printEventExpression(
  ast: AstNode,
  options: PrintOptions,
  columnSql: (column: string) => string,
): { sql: string; params: Record<string, unknown>; needs: TableNeeds } {
  return new HogQLPrinter(options).printExpression(ast, TABLES.get('events')!, columnSql)
}
