import {
  groupCreateSchema,
  groupFindQuerySchema,
  groupPropertyDefinitionsSchema,
  groupPropertyValuesQuerySchema,
  groupPropertyValuesSchema,
  groupSchema,
  groupsListQuerySchema,
  groupTypeDefaultColumnsSchema,
  groupTypeMetadataSchema,
  groupTypeSchema,
  pageQuerySchema,
  pageSchema,
} from '@burrow/contracts'
import { groups } from '@burrow/core'
import { z } from 'zod'
import { projectProcedure, router } from '../trpc'

export const groupsRouter = router({
  list: projectProcedure
    .input(pageQuerySchema.extend(groupsListQuerySchema.shape))
    .output(pageSchema(groupSchema))
    .query(({ ctx, input }) => groups.listGroups(ctx.deps, ctx.project.row.id, input)),
  create: projectProcedure
    .input(groupCreateSchema)
    .output(groupSchema)
    .mutation(({ ctx, input }) => groups.createGroup(ctx.deps, ctx.project.row.id, input)),
  find: projectProcedure
    .input(groupFindQuerySchema)
    .output(groupSchema)
    .query(({ ctx, input }) => groups.findGroup(ctx.deps, ctx.project.row.id, input)),
  propertyDefinitions: projectProcedure
    .input(z.object({}))
    .output(groupPropertyDefinitionsSchema)
    .query(({ ctx }) => groups.groupPropertyDefinitions(ctx.deps, ctx.project.row.id)),
  propertyValues: projectProcedure
    .input(groupPropertyValuesQuerySchema)
    .output(groupPropertyValuesSchema)
    .query(({ ctx, input }) => groups.groupPropertyValues(ctx.deps, ctx.project.row.id, input)),
})

export const groupTypesRouter = router({
  list: projectProcedure
    .input(z.object({}))
    .output(z.array(groupTypeSchema))
    .query(({ ctx }) => groups.listGroupTypes(ctx.deps, ctx.project.row.id)),
  updateMetadata: projectProcedure
    .input(z.object({ data: groupTypeMetadataSchema }))
    .output(z.array(groupTypeSchema))
    .mutation(({ ctx, input }) => groups.updateGroupTypesMetadata(ctx.deps, ctx.project.row.id, input.data)),
  setDefaultColumns: projectProcedure
    .input(groupTypeDefaultColumnsSchema)
    .output(groupTypeSchema)
    .mutation(({ ctx, input }) => groups.setGroupTypeDefaultColumns(ctx.deps, ctx.project.row.id, input)),
})
