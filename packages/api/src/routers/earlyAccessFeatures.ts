import {
  earlyAccessFeatureCreateSchema,
  earlyAccessFeatureSchema,
  earlyAccessFeatureUpdateSchema,
  pageQuerySchema,
  pageSchema,
} from '@burrow/contracts'
import { earlyAccessFeatures } from '@burrow/core'
import { z } from 'zod'
import { projectProcedure, router } from '../trpc'
import { idParam } from './inputs'

export const earlyAccessFeaturesRouter = router({
  list: projectProcedure
    .input(pageQuerySchema)
    .output(pageSchema(earlyAccessFeatureSchema))
    .query(({ ctx, input }) => earlyAccessFeatures.listEarlyAccessFeatures(ctx.deps, ctx.project.row.id, input)),
  create: projectProcedure
    .input(earlyAccessFeatureCreateSchema)
    .output(earlyAccessFeatureSchema)
    .mutation(({ ctx, input }) => earlyAccessFeatures.createEarlyAccessFeature(ctx.deps, ctx.project.row.id, ctx.user, input)),
  get: projectProcedure
    .input(idParam)
    .output(earlyAccessFeatureSchema)
    .query(({ ctx, input }) => earlyAccessFeatures.getEarlyAccessFeature(ctx.deps, ctx.project.row.id, input.id)),
  update: projectProcedure
    .input(idParam.extend({ data: earlyAccessFeatureUpdateSchema }))
    .output(earlyAccessFeatureSchema)
    .mutation(({ ctx, input }) => earlyAccessFeatures.updateEarlyAccessFeature(ctx.deps, ctx.project.row.id, input.id, input.data)),
  delete: projectProcedure
    .input(idParam)
    .output(z.void())
    .mutation(({ ctx, input }) => earlyAccessFeatures.deleteEarlyAccessFeature(ctx.deps, ctx.project.row.id, input.id)),
})
