import { ingestionWarningsQuerySchema, ingestionWarningsResponseSchema } from '@burrow/contracts'
import { ingestionWarnings } from '@burrow/core'
import { projectProcedure, router } from '../trpc'

export const ingestionWarningsRouter = router({
  list: projectProcedure
    .input(ingestionWarningsQuerySchema)
    .output(ingestionWarningsResponseSchema)
    .query(({ ctx, input }) => ingestionWarnings.summariseIngestionWarnings(ctx.deps, ctx.project.row.id, input.q)),
})
