import {
  cursorPageSchema,
  foundGroupSchema,
  groupCreateSchema,
  groupDeletePropertySchema,
  groupFindQuerySchema,
  groupPropertyDefinitionsSchema,
  groupPropertyValuesQuerySchema,
  groupPropertyValuesSchema,
  groupSchema,
  groupsListQuerySchema,
  groupTypeDefaultColumnsSchema,
  groupTypeMetadataSchema,
  groupTypeIndexPathSchema,
  groupTypeSchema,
  groupUpdatePropertySchema,
  problems,
} from '@burrow/contracts'
import { groups } from '@burrow/core'
import { z } from 'zod'
import { projectProcedure, router } from '../trpc'

export const groupsRouter = router({
  list: projectProcedure
    .input(groupsListQuerySchema)
    .output(cursorPageSchema(groupSchema))
    .query(({ ctx, input }) => groups.listGroups(ctx.deps, ctx.project.row.id, input)),
  create: projectProcedure
    .input(groupCreateSchema)
    .output(groupSchema)
    .mutation(({ ctx, input }) => groups.createGroup(ctx.deps, ctx.project.row.id, input)),
  find: projectProcedure
    .input(groupFindQuerySchema)
    .output(foundGroupSchema)
    .query(({ ctx, input }) => groups.findGroup(ctx.deps, ctx.project.row.id, input)),
  updateProperty: projectProcedure
    .input(groupUpdatePropertySchema)
    .output(groupSchema)
    .mutation(({ ctx, input }) => groups.updateGroupProperty(ctx.deps, ctx.project.row.id, { ...input, ...input.data })),
  deleteProperty: projectProcedure
    .input(groupDeletePropertySchema)
    .output(groupSchema)
    .mutation(({ ctx, input }) => groups.deleteGroupProperty(ctx.deps, ctx.project.row.id, { ...input, ...input.data })),
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
  delete: projectProcedure
    .input(groupTypeIndexPathSchema)
    .output(z.void())
    .mutation(({ ctx, input }) => {
      if (!/^[0-4]$/.test(input.group_type_index)) throw problems.notFound()
      return groups.deleteGroupType(ctx.deps, ctx.project.row.id, Number(input.group_type_index))
    }),
})
