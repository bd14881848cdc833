import type { AnalyticsQuery, QueryKind } from '@burrow/contracts'
import type { QueryContext } from './context'
import type { RunnerOutput } from './runnerOutput'
import { runActors } from './actors'
import { runFunnels } from './funnels'
import { runLifecycle } from './lifecycle'
import { runPaths } from './paths'
import { runRetention } from './retention'
import { runStickiness } from './stickiness'
import { runTrends } from './trends'
import { runEventsQuery } from './hogql/eventsQuery'
import { runHogQLQuery } from './hogql/hogqlQuery'
import { runWebOverview } from './web/overview'
import { runWebStatsTable } from './web/statsTable'

/** A runner answering a whole response, as the HogQL ones do: `results` apart, the other fields as they are. */
const answeringWhole =
  <Q, R extends { results: unknown; hogql?: unknown }>(run: (ctx: QueryContext, query: Q) => Promise<R>) =>
  async (ctx: QueryContext, query: Q): Promise<RunnerOutput> => {
    const { results, hogql, ...extra } = await run(ctx, query)
    return { results, extra, ...(typeof hogql === 'string' ? { hogql } : {}) }
  }

type Runner<K extends QueryKind> = (ctx: QueryContext, query: Extract<AnalyticsQuery, { kind: K }>) => Promise<RunnerOutput>

/** Each query kind and the runner that answers it. */
export const runners: { [K in QueryKind]?: Runner<K> } = {
  TrendsQuery: runTrends,
  LifecycleQuery: runLifecycle,
  FunnelsQuery: runFunnels,
  RetentionQuery: runRetention,
  StickinessQuery: runStickiness,
  PathsQuery: runPaths,
  HogQLQuery: answeringWhole(runHogQLQuery),
  EventsQuery: answeringWhole(runEventsQuery),
  WebOverviewQuery: runWebOverview,
  WebStatsTableQuery: runWebStatsTable,
  ActorsQuery: runActors,
}

/** Runs a query with the runner of its kind. */
export function runQuery(ctx: QueryContext, query: AnalyticsQuery): Promise<RunnerOutput> | undefined {
  const runner = runners[query.kind] as Runner<QueryKind> | undefined
  return runner?.(ctx, query)
}
