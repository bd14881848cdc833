import {
  dashboardBasicSchema,
  dashboardCreateSchema,
  dashboardGetQuerySchema,
  dashboardSchema,
  dashboardUpdateSchema,
  insightGetQuerySchema,
  insightListQuerySchema,
  insightSchema,
  insightWriteSchema,
  pageQuerySchema,
  pageSchema,
} from '@burrow/contracts'
import { dashboards, insights } from '@burrow/core'
import { projectProcedure, router } from '../trpc'
import { idParam, optionalText } from './inputs'

export const insightsRouter = router({
  list: projectProcedure
    .input(pageQuerySchema.extend(insightListQuerySchema.shape))
    .output(pageSchema(insightSchema))
    .query(({ ctx, input }) => insights.listInsights(ctx.deps, ctx.project.row, input)),
  create: projectProcedure
    .input(insightWriteSchema)
    .output(insightSchema)
    .mutation(({ ctx, input }) => insights.createInsight(ctx.deps, ctx.project.row, ctx.user, input)),
  get: projectProcedure
    .input(idParam.extend(insightGetQuerySchema.shape))
    .output(insightSchema)
    .query(({ ctx, input }) => insights.getInsight(ctx.deps, ctx.project.row, input.id, input)),
  update: projectProcedure
    .input(idParam.extend({ data: insightWriteSchema }))
    .output(insightSchema)
    .mutation(({ ctx, input }) => insights.updateInsight(ctx.deps, ctx.project.row, ctx.user, input.id, input.data)),
})

export const dashboardsRouter = router({
  list: projectProcedure
    .input(pageQuerySchema.extend({ search: optionalText }))
    .output(pageSchema(dashboardBasicSchema))
    .query(({ ctx, input }) => dashboards.listDashboards(ctx.deps, ctx.project.row.id, input)),
  create: projectProcedure
    .input(dashboardCreateSchema)
    .output(dashboardSchema)
    .mutation(({ ctx, input }) => dashboards.createDashboard(ctx.deps, ctx.project.row, ctx.user, input)),
  get: projectProcedure
    .input(idParam.extend(dashboardGetQuerySchema.shape))
    .output(dashboardSchema)
    .query(({ ctx, input }) => dashboards.getDashboard(ctx.deps, ctx.project.row, input.id, input)),
  update: projectProcedure
    .input(idParam.extend({ data: dashboardUpdateSchema }))
    .output(dashboardSchema)
    .mutation(({ ctx, input }) => dashboards.updateDashboard(ctx.deps, ctx.project.row, ctx.user, input.id, input.data)),
})
