import {
  DEFAULT_PAGE_LIMIT,
  drfInteger,
  MAX_PAGE_LIMIT,
  pageQuerySchema,
  pageSchema,
  pluginConfigCreateSchema,
  pluginConfigSchema,
  pluginConfigUpdateSchema,
  pluginJobRequestSchema,
  pluginLogEntrySchema,
  pluginRearrangeSchema,
  pluginSchema,
} from '@burrow/contracts'
import { organizations } from '@burrow/core'
import { pluginConfigs } from '@burrow/plugins'
import { z } from 'zod'
import { authedProcedure, projectProcedure, router } from '../trpc'
import { idParam, optionalText, repeatableText, textParam } from './inputs'

export const pluginsRouter = router({
  /** The plugins an organization may configure: the built-in catalog. */
  list: authedProcedure
    .input(pageQuerySchema.extend({ organization_id: textParam }))
    .output(pageSchema(pluginSchema))
    .query(async ({ ctx, input }) => {
      await organizations.findAccessibleOrganization(ctx.deps, ctx.user, input.organization_id)
      const all = pluginConfigs.allPlugins()
      return { count: all.length, limit: input.limit, offset: input.offset, results: all.slice(input.offset, input.offset + input.limit) }
    }),
})

export const pluginConfigsRouter = router({
  list: projectProcedure
    .input(pageQuerySchema)
    .output(pageSchema(pluginConfigSchema))
    .query(({ ctx, input }) => pluginConfigs.listPluginConfigs(ctx.deps, ctx.project.row.id, input)),
  create: projectProcedure
    .input(pluginConfigCreateSchema)
    .output(pluginConfigSchema)
    .mutation(({ ctx, input }) => pluginConfigs.createPluginConfig(ctx.deps, ctx.project.row.id, input)),
  get: projectProcedure
    .input(idParam)
    .output(pluginConfigSchema)
    .query(({ ctx, input }) => pluginConfigs.getPluginConfig(ctx.deps, ctx.project.row.id, input.id)),
  update: projectProcedure
    .input(idParam.extend({ data: pluginConfigUpdateSchema }))
    .output(pluginConfigSchema)
    .mutation(({ ctx, input }) => pluginConfigs.updatePluginConfig(ctx.deps, ctx.project.row.id, input.id, input.data)),
  delete: projectProcedure
    .input(idParam)
    .output(z.void())
    .mutation(({ ctx, input }) => pluginConfigs.deletePluginConfig(ctx.deps, ctx.project.row.id, input.id)),
  frontend: projectProcedure
    .input(idParam)
    .output(z.string())
    .query(({ ctx, input }) => pluginConfigs.pluginConfigFrontend(ctx.deps, ctx.project.row.id, input.id)),
  job: projectProcedure
    .input(idParam.extend({ data: pluginJobRequestSchema }))
    .output(z.object({}))
    .mutation(async ({ ctx, input }) => {
      await pluginConfigs.enqueuePluginJob(ctx.deps, ctx.project.row.id, ctx.user, input.id, input.data)
      return {}
    }),
  rearrange: projectProcedure
    .input(z.object({ data: pluginRearrangeSchema }))
    .output(z.array(pluginConfigSchema))
    .mutation(({ ctx, input }) => pluginConfigs.rearrangePluginConfigs(ctx.deps, ctx.project.row.id, input.data.orders)),
  logs: projectProcedure
    .input(
      pageQuerySchema.extend({
        // Unlike a list's page size, the log's limit is an integer field: other text is refused.
        limit: drfInteger(z.number().int().min(1))
          .optional()
          .transform((v) => Math.min(v ?? DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT)),
        parent_lookup_plugin_config_id: textParam,
        type_filter: repeatableText,
        search: optionalText,
        after: optionalText,
        before: optionalText,
      }),
    )
    .output(pageSchema(pluginLogEntrySchema))
    .query(({ ctx, input }) =>
      pluginConfigs.pluginConfigLogs(ctx.deps, ctx.project.row.id, input.parent_lookup_plugin_config_id, {
        limit: input.limit,
        offset: input.offset,
        types: input.type_filter,
        search: input.search,
        after: input.after,
        before: input.before,
      }),
    ),
})
