import {
  pageQuerySchema,
  pageSchema,
  projectCreateSchema,
  projectListItemSchema,
  projectSchema,
  projectUpdateSchema,
} from '@burrow/contracts'
import { projects } from '@burrow/core'
import { z } from 'zod'
import { authedProcedure, router } from '../trpc'
import { idParam } from './inputs'

const projectIdParam = idParam

export const projectsRouter = router({
  list: authedProcedure
    .input(pageQuerySchema)
    .output(pageSchema(projectListItemSchema))
    .query(({ ctx, input }) => projects.listProjects(ctx.deps, ctx.user, input)),
  create: authedProcedure
    .input(projectCreateSchema)
    .output(projectSchema)
    .mutation(({ ctx, input }) => projects.createProject(ctx.deps, ctx.user, input)),
  get: authedProcedure
    .input(projectIdParam)
    .output(projectSchema)
    .query(({ ctx, input }) => projects.getProject(ctx.deps, ctx.user, input.id)),
  update: authedProcedure
    .input(projectIdParam.extend({ data: projectUpdateSchema }))
    .output(projectSchema)
    .mutation(({ ctx, input }) => projects.updateProject(ctx.deps, ctx.user, input.id, input.data)),
  delete: authedProcedure
    .input(projectIdParam)
    .output(z.void())
    .mutation(({ ctx, input }) => projects.deleteProject(ctx.deps, ctx.user, input.id)),
})
