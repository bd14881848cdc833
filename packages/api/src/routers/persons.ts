import {
  pageQuerySchema,
  pageSchema,
  personCohortsQuerySchema,
  personCohortsSchema,
  personDeleteQuerySchema,
  personSchema,
  personsListQuerySchema,
} from '@burrow/contracts'
import { cohorts, persons } from '@burrow/core'
import { z } from 'zod'
import { projectProcedure, router } from '../trpc'
import { idParam } from './inputs'

export const personsRouter = router({
  list: projectProcedure
    .input(pageQuerySchema.extend(personsListQuerySchema.shape))
    .output(pageSchema(personSchema))
    .query(({ ctx, input }) =>
      persons.listPersons(
        ctx.deps,
        ctx.project.row,
        { search: input.search, distinctId: input.distinct_id, properties: input.properties },
        input,
      ),
    ),
  get: projectProcedure
    .input(idParam)
    .output(personSchema)
    .query(({ ctx, input }) => persons.getPerson(ctx.deps, ctx.project.row, input.id)),
  /** PostHog's persons/cohorts: the cohorts the person is in, as of each one's last calculation. */
  cohorts: projectProcedure
    .input(personCohortsQuerySchema)
    .output(personCohortsSchema)
    .query(async ({ ctx, input }) => ({ results: await cohorts.personCohorts(ctx.deps, ctx.project.row.id, input.person_id) })),
  delete: projectProcedure
    .input(idParam.extend(personDeleteQuerySchema.shape))
    .output(z.void())
    .mutation(({ ctx, input }) => persons.deletePerson(ctx.deps, ctx.project.row.id, input.id, { deleteEvents: input.delete_events })),
})
