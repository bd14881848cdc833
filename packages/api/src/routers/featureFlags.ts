import {
  featureFlagCreateSchema,
  featureFlagSchema,
  featureFlagUpdateSchema,
  localEvaluationSchema,
  pageQuerySchema,
  pageSchema,
} from '@burrow/contracts'
import { featureFlags, projects } from '@burrow/core'
import { z } from 'zod'
import { authedProcedure, projectProcedure, router } from '../trpc'
import { idParam, optionalText } from './inputs'

/** `active=true|false` of a query string (anything else: no filter). */
const activeFilter = z
  .unknown()
  .optional()
  .transform((v) => (v === true || v === 'true' ? true : v === false || v === 'false' ? false : undefined))

export const featureFlagsRouter = router({
  list: projectProcedure
    .input(pageQuerySchema.extend({ search: optionalText, active: activeFilter }))
    .output(pageSchema(featureFlagSchema))
    .query(({ ctx, input }) => featureFlags.listFeatureFlags(ctx.deps, ctx.project.row.id, input)),
  create: projectProcedure
    .input(featureFlagCreateSchema)
    .output(featureFlagSchema)
    .mutation(({ ctx, input }) => featureFlags.createFeatureFlag(ctx.deps, ctx.project.row.id, ctx.user, input)),
  get: projectProcedure
    .input(idParam)
    .output(featureFlagSchema)
    .query(({ ctx, input }) => featureFlags.getFeatureFlag(ctx.deps, ctx.project.row.id, input.id)),
  /** Definitions for SDKs that evaluate flags themselves; the project comes from `token`, else the URL or the user's current one. */
  localEvaluation: authedProcedure
    .input(z.object({ project_id: optionalText, token: optionalText, send_cohorts: z.unknown().optional() }))
    .output(localEvaluationSchema)
    .query(async ({ ctx, input }) => {
      let projectId: number | undefined
      if (input.project_id !== undefined && !input.token) {
        projectId = (await projects.findAccessibleProject(ctx.deps, ctx.user, input.project_id)).row.id
      }
      // `send_cohorts` asks for the cohorts' conditions, whatever its value (posthog-node sends it bare).
      return featureFlags.localEvaluation(ctx.deps, ctx.user, projectId, input.token, { sendCohorts: input.send_cohorts !== undefined })
    }),
  /** A remote configuration flag's payload; undefined when the flag is not one (REST: 404 without a body). */
  remoteConfig: projectProcedure
    .input(z.object({ id: z.string() }))
    .output(z.unknown())
    .query(({ ctx, input }) => featureFlags.remoteConfigPayload(ctx.deps, ctx.project.row.id, input.id)),
  update: projectProcedure
    .input(idParam.extend({ data: featureFlagUpdateSchema }))
    .output(featureFlagSchema)
    .mutation(({ ctx, input }) => featureFlags.updateFeatureFlag(ctx.deps, ctx.project.row.id, input.id, input.data)),
})
