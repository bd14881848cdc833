import { queryRequestSchema, queryResponseSchema, queryStatusSchema } from '@burrow/contracts'
import { queries } from '@burrow/core'
import { z } from 'zod'
import { projectProcedure, router } from '../trpc'
import { idParam } from './inputs'

export const queryRouter = router({
  run: projectProcedure
    .input(queryRequestSchema)
    .output(queryResponseSchema)
    .mutation(({ ctx, input, signal }) => queries.runQueryRequest(ctx.deps, ctx.project.row, input, signal)),
  status: projectProcedure
    .input(idParam)
    .output(queryStatusSchema)
    .query(({ ctx, input }) => queries.queryStatus(ctx.deps, ctx.project.row.id, input.id)),
  cancel: projectProcedure
    .input(idParam)
    .output(z.void())
    .mutation(({ ctx, input }) => queries.cancelQuery(ctx.deps, ctx.project.row.id, input.id)),
})
