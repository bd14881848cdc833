import { eventSchema, pageQuerySchema, pageSchema } from '@burrow/contracts'
import { events } from '@burrow/core'
import { z } from 'zod'
import { projectProcedure, router } from '../trpc'
import { idParam, optionalText, repeatableText } from './inputs'

export const eventsRouter = router({
  list: projectProcedure
    .input(
      pageQuerySchema.extend({
        event: optionalText,
        distinct_id: optionalText,
        person_id: optionalText,
        /** A JSON list of `{key, value, operator, type}` (text in a query string). */
        properties: z.unknown().optional(),
        after: optionalText,
        before: optionalText,
      }),
    )
    .output(pageSchema(eventSchema))
    .query(({ ctx, input, signal }) =>
      events.listEvents(
        ctx.deps,
        ctx.project.row.id,
        {
          event: input.event,
          distinctId: input.distinct_id,
          personId: input.person_id,
          properties: input.properties,
          after: input.after,
          before: input.before,
          timezone: ctx.project.row.timezone,
        },
        input,
        signal,
      ),
    ),
  get: projectProcedure
    .input(idParam)
    .output(eventSchema)
    .query(({ ctx, input }) => events.getEvent(ctx.deps, ctx.project.row.id, input.id)),
  values: projectProcedure
    .input(z.object({ key: optionalText, value: optionalText, event: repeatableText, event_name: repeatableText }))
    .output(z.array(z.object({ name: z.string(), count: z.number().int() })))
    .query(({ ctx, input }) =>
      events.propertyValues(ctx.deps, ctx.project.row.id, {
        key: input.key,
        value: input.value,
        events: [...(input.event ?? []), ...(input.event_name ?? [])],
      }),
    ),
})
