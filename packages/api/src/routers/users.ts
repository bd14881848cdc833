import { meSchema } from '@burrow/contracts'
import { describeMe } from '@burrow/core'
import { z } from 'zod'
import { authedProcedure, router } from '../trpc'

export const usersRouter = router({
  me: authedProcedure
    .input(z.object({}).optional())
    .output(meSchema)
    .query(({ ctx }) => describeMe(ctx.deps, ctx.user)),
})
