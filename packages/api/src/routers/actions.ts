import { actionListQuerySchema, actionSchema, actionWriteSchema, pageQuerySchema, pageSchema } from '@burrow/contracts'
import { actions } from '@burrow/core'
import { projectProcedure, router } from '../trpc'
import { idParam } from './inputs'

export const actionsRouter = router({
  list: projectProcedure
    .input(pageQuerySchema.extend(actionListQuerySchema.shape))
    .output(pageSchema(actionSchema))
    .query(({ ctx, input }) => actions.listActions(ctx.deps, ctx.project.row.id, ctx.user, input)),
  create: projectProcedure
    .input(actionWriteSchema)
    .output(actionSchema)
    .mutation(({ ctx, input }) => actions.createAction(ctx.deps, ctx.project.row.id, ctx.user, input)),
  get: projectProcedure
    .input(idParam)
    .output(actionSchema)
    .query(({ ctx, input }) => actions.getAction(ctx.deps, ctx.project.row.id, ctx.user, input.id)),
  update: projectProcedure
    .input(idParam.extend({ data: actionWriteSchema }))
    .output(actionSchema)
    .mutation(({ ctx, input }) => actions.updateAction(ctx.deps, ctx.project.row.id, ctx.user, input.id, input.data)),
})
