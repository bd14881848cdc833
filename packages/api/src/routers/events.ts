import { eventSchema, pageQuerySchema, pageSchema } from '@burrow/contracts'
import { events } from '@burrow/core'
import { z } from 'zod'
import { projectProcedure, router } from '../trpc'

const optionalText = z
  .union([z.string(), z.number()])
  .transform(String)
  .optional()

export const eventsRouter = router({
  list: projectProcedure
    .input(
      pageQuerySchema.extend({
        event: optionalText,
        distinct_id: optionalText,
        after: optionalText,
        before: optionalText,
      }),
    )
    .output(pageSchema(eventSchema))
    .query(({ ctx, input }) =>
      events.listEvents(
        ctx.deps,
        ctx.project.row.id,
        { event: input.event, distinctId: input.distinct_id, after: input.after, before: input.before },
        input,
      ),
    ),
})
