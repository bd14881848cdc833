import { eventDefinitionSchema, eventDefinitionUpdateSchema, pageQuerySchema, pageSchema } from '@burrow/contracts'
import { eventDefinitions } from '@burrow/core'
import { projectProcedure, router } from '../trpc'
import { idParam, optionalText } from './inputs'

export const eventDefinitionsRouter = router({
  list: projectProcedure
    .input(pageQuerySchema.extend({ search: optionalText }))
    .output(pageSchema(eventDefinitionSchema))
    .query(({ ctx, input }) => eventDefinitions.listEventDefinitions(ctx.deps, ctx.project.row.id, input)),
  get: projectProcedure
    .input(idParam)
    .output(eventDefinitionSchema)
    .query(({ ctx, input }) => eventDefinitions.getEventDefinition(ctx.deps, ctx.project.row.id, input.id)),
  update: projectProcedure
    .input(idParam.extend({ data: eventDefinitionUpdateSchema }))
    .output(eventDefinitionSchema)
    .mutation(({ ctx, input }) => eventDefinitions.updateEventDefinition(ctx.deps, ctx.project.row.id, ctx.user, input.id, input.data)),
})
