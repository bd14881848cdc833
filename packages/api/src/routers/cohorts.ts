import {
  cohortCreateSchema,
  cohortPersonSchema,
  cohortSchema,
  cohortUpdateSchema,
  pageQuerySchema,
  pageSchema,
  personsListQuerySchema,
} from '@burrow/contracts'
import { cohorts } from '@burrow/core'
import { projectProcedure, router } from '../trpc'
import { idParam, optionalText } from './inputs'

export const cohortsRouter = router({
  list: projectProcedure
    .input(pageQuerySchema.extend({ search: optionalText }))
    .output(pageSchema(cohortSchema))
    .query(({ ctx, input }) => cohorts.listCohorts(ctx.deps, ctx.project.row.id, input)),
  create: projectProcedure
    .input(cohortCreateSchema)
    .output(cohortSchema)
    .mutation(({ ctx, input }) => cohorts.createCohort(ctx.deps, ctx.project.row.id, ctx.user, input)),
  get: projectProcedure
    .input(idParam)
    .output(cohortSchema)
    .query(({ ctx, input }) => cohorts.getCohort(ctx.deps, ctx.project.row.id, input.id)),
  update: projectProcedure
    .input(idParam.extend({ data: cohortUpdateSchema }))
    .output(cohortSchema)
    .mutation(({ ctx, input }) => cohorts.updateCohort(ctx.deps, ctx.project.row.id, input.id, input.data)),
  persons: projectProcedure
    .input(idParam.extend(pageQuerySchema.shape).extend(personsListQuerySchema.shape))
    .output(pageSchema(cohortPersonSchema))
    .query(({ ctx, input }) =>
      cohorts.cohortPersons(
        ctx.deps,
        ctx.project.row,
        input.id,
        { search: input.search, distinctId: input.distinct_id, properties: input.properties },
        input,
      ),
    ),
})
