import type { SqlParams } from '@burrow/clickhouse'
import { problems, type ActorsSource } from '@burrow/contracts'
import type { QueryContext } from '../context'
import { trendsActorsSql } from '../trends/actors'

/**
 * The persons behind one point of an insight, as a statement of `actor_id` (the person's id) and
 * the point's own columns.
 */
export interface PointActors {
  sql: string
  columns: Array<'event_count' | 'event_distinct_ids'>
}

/** The statement of the persons behind the point `source` names. */
export async function insightActorsSql(ctx: QueryContext, source: ActorsSource, params: SqlParams): Promise<PointActors> {
  if (source.kind === 'InsightActorsQuery' && source.source.kind === 'TrendsQuery') {
    return { sql: await trendsActorsSql(ctx, source.source, source, params), columns: ['event_count', 'event_distinct_ids'] }
  }
  throw problems.validation('query__source__source__kind', `The persons of a ${source.source.kind} are not supported yet.`)
}
