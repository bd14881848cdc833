// Where the service's tables live: on one server (or the embedded engine), or across a cluster.
//
// On a cluster (CLICKHOUSE_CLUSTER), as PostHog lays out its own:
// - events, the one table that grows with traffic, is split over the shards: each shard keeps
//   its rows in `events_local` (ReplicatedReplacingMergeTree, copied between the shard's
//   replicas), and `events` is a Distributed table over them, through which every read and
//   write goes. Rows are placed by sipHash64(distinct_id): every copy of an event (a batch
//   inserted again after a crash holds the same rows) lands on the shard that already has it,
//   where the insert's deduplication token drops it.
// - event_daily_counts is filled by a materialized view on each shard's events_local, so it is
//   split the same way and read through a Distributed table that adds up the shards.
// - Every other table (persons, distinct ids, cohort members, groups, logs, warnings, dead
//   letters, the migrations' record) is small beside events and is read inside event queries:
//   each server keeps a full copy (one replication path for the whole cluster, PostHog's
//   "noshard" tables), so a query over events joins them on each shard without moving data.
// - Every DDL statement runs ON CLUSTER, so that each server gets it.
//
// Migrations are written once, for one server; clusterStatements rewrites each statement for the
// cluster. It knows the few forms our migrations use and refuses any other, so that a new form
// must be taught here (and shows up in the expected cluster schema) instead of reaching a
// cluster half-translated.
//
// The embedded engine can rehearse the cluster layout (CLICKHOUSE_CLUSTER without a server): it
// is started as the only shard of a one-server cluster, its split tables are plain MergeTree
// tables under Distributed ones, and DDL runs without ON CLUSTER (which needs Keeper, as
// replication does). Reads and writes then take the Distributed path a cluster takes.

/** The tables split over the shards, each with the expression that chooses a row's shard. */
const SHARDED_TABLES: Readonly<Record<string, string>> = {
  events: 'sipHash64(distinct_id)',
  // Only a backfill writes through this one: the view writes on each shard directly.
  event_daily_counts: 'sipHash64(team_id, event)',
}

/** The setting of a delete (a mutation) that must have taken effect when it answers: on every replica (on one server, that one). */
export const MUTATIONS_SYNC = '2'

/** The suffix of a split table's rows on each shard. */
const LOCAL_SUFFIX = '_local'

export interface ClusterOptions {
  /** The cluster's name in the servers' remote_servers configuration. */
  name: string
  /** The database on every server. */
  database: string
  /** Replicated tables and ON CLUSTER DDL (a real cluster, with Keeper); false for the embedded rehearsal. */
  replicated: boolean
}

export class TableLayout {
  /** One server's tables, named as the migrations name them. */
  static readonly single = new TableLayout(undefined)

  static cluster(options: ClusterOptions): TableLayout {
    if (!/^\w+$/.test(options.name))
      throw new Error(`CLICKHOUSE_CLUSTER must be a plain name (letters, digits, _), not ${JSON.stringify(options.name)}`)
    if (!/^\w+$/.test(options.database))
      throw new Error(`a cluster's database must be a plain name, not ${JSON.stringify(options.database)}`)
    return new TableLayout(options)
  }

  private constructor(readonly clusterOptions: ClusterOptions | undefined) {}

  get clustered(): boolean {
    return this.clusterOptions !== undefined
  }

  /** The table that holds a table's rows: each shard's local table where the table is split, else the table itself. */
  rowsTable(table: string): string {
    return this.clustered && table in SHARDED_TABLES ? `${table}${LOCAL_SUFFIX}` : table
  }

  /**
   * What an ALTER that changes rows, settings, indexes or TTLs names: the table that holds the
   * rows, on every server. (Replicated tables run such an ALTER once per shard and copy its
   * effect to the other replicas.)
   */
  alterTarget(table: string): string {
    return `${this.rowsTable(table)}${this.onCluster()}`
  }

  /** A table as a statement that makes, renames or drops it names it: on every server of a replicated cluster. */
  ddlTarget(table: string): string {
    return `${table}${this.onCluster()}`
  }

  /**
   * What an ALTER that adds or changes a column names: the table that holds the rows and the
   * Distributed table in front of it, whose columns must match for reads to reach the column.
   */
  columnTargets(table: string): string[] {
    const rows = this.alterTarget(table)
    return this.rowsTable(table) === table ? [rows] : [rows, `${table}${this.onCluster()}`]
  }

  /**
   * Settings of an insert into a table: into a split table the Distributed table writes to the
   * shards before answering, so that an acknowledged batch is on its shard (not in a second,
   * unguarded queue on the server the insert reached) and a failure reaches our retry.
   */
  insertSettings(table: string): Record<string, number> {
    return this.clustered && table in SHARDED_TABLES ? { distributed_foreground_insert: 1 } : {}
  }

  /** Settings of every read on a cluster: a subquery over a split table inside a query over one is computed once and sent to the shards. */
  readSettings(): Record<string, string> {
    return this.clustered ? { distributed_product_mode: 'global' } : {}
  }

  /** A migration's statement as this layout runs it: unchanged on one server, rewritten for a cluster. */
  statements(statement: string): string[] {
    return this.clusterOptions ? clusterStatements(statement, this.clusterOptions) : [statement]
  }

  private onCluster(): string {
    return this.clusterOptions?.replicated ? ` ON CLUSTER ${this.clusterOptions.name}` : ''
  }
}

const CREATE_TABLE = /^CREATE TABLE IF NOT EXISTS (\w+)\s*(\([\s\S]*\))\s*ENGINE = (\w+)(?:\(([^)]*)\))?([\s\S]*)$/
const ALTER_TABLE = /^ALTER TABLE (\w+) ([\s\S]+)$/
const CREATE_VIEW = /^CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+) TO (\w+) AS\s+([\s\S]+)$/
const INSERT_SELECT = /^INSERT INTO \w+\s+SELECT\s/

/** One statement written for one server, as a cluster runs it (see the top of this file). */
function clusterStatements(statement: string, cluster: ClusterOptions): string[] {
  const layout = TableLayout.cluster(cluster)
  const on = cluster.replicated ? ` ON CLUSTER ${cluster.name}` : ''
  const settings = (text: string) =>
    cluster.replicated ? text.replaceAll('non_replicated_deduplication_window', 'replicated_deduplication_window') : text

  const create = CREATE_TABLE.exec(statement)
  if (create) {
    const [, table = '', columns = '', engine = '', args, rest = ''] = create
    const rowsTable = layout.rowsTable(table)
    const sharded = rowsTable !== table
    const replication = sharded
      ? [`'/clickhouse/tables/{shard}/${cluster.database}.${rowsTable}'`, `'{replica}'`]
      : [`'/clickhouse/tables/noshard/${cluster.database}.${table}'`, `'{shard}-{replica}'`]
    const engineSql = cluster.replicated
      ? `Replicated${engine}(${[...replication, ...(args ? [args] : [])].join(', ')})`
      : `${engine}${args === undefined ? '' : `(${args})`}`
    const rows = `CREATE TABLE IF NOT EXISTS ${rowsTable}${on}\n${columns}\nENGINE = ${engineSql}${settings(rest)}`
    if (!sharded) return [rows]
    return [
      rows,
      `CREATE TABLE IF NOT EXISTS ${table}${on} AS ${rowsTable}\nENGINE = Distributed(${cluster.name}, ${cluster.database}, ${rowsTable}, ${SHARDED_TABLES[table]})`,
    ]
  }

  const alter = ALTER_TABLE.exec(statement)
  if (alter) {
    const [, table = '', action = ''] = alter
    const targets = /^(ADD|MODIFY|DROP|RENAME|COMMENT) COLUMN /.test(action) ? layout.columnTargets(table) : [layout.alterTarget(table)]
    return targets.map((target) => `ALTER TABLE ${target} ${settings(action)}`)
  }

  const view = CREATE_VIEW.exec(statement)
  if (view) {
    const [, name = '', target = '', select = ''] = view
    // The view watches inserts into the table that holds the rows: on a cluster, each shard's
    // local table, writing to that shard's local copy of the target.
    const source = /\bFROM (\w+)\b/.exec(select)?.[1] ?? ''
    if (layout.rowsTable(source) === source) throw unsupported(statement, 'a materialized view over a table that is not split')
    if (layout.rowsTable(target) === target) throw unsupported(statement, 'a materialized view over a split table into one that is not')
    const localSelect = select.replace(new RegExp(`\\bFROM ${source}\\b`), `FROM ${layout.rowsTable(source)}`)
    return [`CREATE MATERIALIZED VIEW IF NOT EXISTS ${name}${on} TO ${layout.rowsTable(target)} AS ${localSelect}`]
  }

  // A backfill reads and writes through the Distributed tables, from the one server that migrates.
  if (INSERT_SELECT.test(statement)) return [statement]

  throw unsupported(statement, 'a statement of a form the cluster layout does not know')
}

function unsupported(statement: string, what: string): Error {
  return new Error(`cannot lay out ${what} for a cluster; teach packages/clickhouse/src/layout.ts this form:\n${statement}`)
}
