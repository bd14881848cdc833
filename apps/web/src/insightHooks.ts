import { useQuery } from '@tanstack/react-query'
import { trpc } from './api'
import { actorsQueryOf, type ActorsPoint } from './insightActors'
import type { InsightSource } from './insightQuery'

type RunInput = Parameters<typeof trpc.query.run.mutate>[0]

/**
 * The answer of `/query/` for an insight's query. `refresh` counts up when the person asks for
 * fresh numbers: that call computes anew, the others take what the service has cached.
 */
export function useInsightResult(projectId: string, source: InsightSource | undefined, refresh = 0) {
  return useQuery({
    queryKey: ['query', projectId, source, refresh],
    enabled: source !== undefined,
    queryFn: ({ signal }) =>
      trpc.query.run.mutate(
        { project_id: projectId, query: source as RunInput['query'], refresh: refresh > 0 ? 'force_blocking' : 'blocking' },
        { signal },
      ),
    retry: false,
  })
}

/** A page of the persons behind a number of an insight (from `offset`), or nothing while no number is chosen. */
export function useInsightActors(projectId: string, source: InsightSource, point: ActorsPoint | undefined, offset: number) {
  return useQuery({
    queryKey: ['actors', projectId, source, point, offset],
    enabled: point !== undefined,
    queryFn: ({ signal }) =>
      trpc.query.run.mutate(
        { project_id: projectId, query: actorsQueryOf(source, point!, offset) as RunInput['query'], refresh: 'blocking' },
        { signal },
      ),
    retry: false,
  })
}

/** A saved insight by its short id, as its page's URL names it. */
export function useInsightByShortId(projectId: string, shortId: string) {
  return useQuery({
    queryKey: ['insight', projectId, shortId],
    queryFn: async ({ signal }) => {
      const page = await trpc.insights.list.query({ project_id: projectId, short_id: shortId, limit: 1 }, { signal })
      const insight = page.results[0]
      if (!insight) throw new Error(`There is no insight ${shortId} in this project.`)
      return insight
    },
  })
}

/** The project's dashboards (the first 200), for lists and pickers. */
export function useDashboards(projectId: string, search?: string) {
  return useQuery({
    queryKey: ['dashboards', projectId, search],
    queryFn: ({ signal }) => trpc.dashboards.list.query({ project_id: projectId, limit: 200, ...(search ? { search } : {}) }, { signal }),
  })
}

/** The project’s live actions (the first 100, the most recent first, as their list shows them), which a series may chart instead of an event. */
export function useActionChoices(projectId: string) {
  const list = useQuery({
    queryKey: ['actions', projectId, undefined],
    queryFn: ({ signal }) => trpc.actions.list.query({ project_id: projectId, limit: 100 }, { signal }),
  })
  return list.data?.results ?? []
}

/** The project's cohorts (the first 100), which a trend may break down by. */
export function useCohortChoices(projectId: string) {
  const list = useQuery({
    queryKey: ['cohorts', projectId, undefined],
    queryFn: ({ signal }) => trpc.cohorts.list.query({ project_id: projectId, limit: 100 }, { signal }),
  })
  return list.data?.results ?? []
}
