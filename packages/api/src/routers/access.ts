import {
  organizationInviteCreateSchema,
  organizationInviteSchema,
  organizationMemberSchema,
  organizationMemberUpdateSchema,
  personalApiKeySchema,
  personalApiKeyUpdateSchema,
  personalApiKeyWriteSchema,
} from '@burrow/contracts'
import { organizationInvites, organizationMembers, personalApiKeys } from '@burrow/core'
import { z } from 'zod'
import { authedProcedure, organizationProcedure, router } from '../trpc'
import { idParam, textParam } from './inputs'

export const personalApiKeysRouter = router({
  list: authedProcedure
    .input(z.object({}).optional())
    .output(z.array(personalApiKeySchema))
    .query(({ ctx }) => personalApiKeys.listKeys(ctx.deps, ctx.user)),
  create: authedProcedure
    .input(personalApiKeyWriteSchema)
    .output(personalApiKeySchema)
    .mutation(({ ctx, input }) => personalApiKeys.createKey(ctx.deps, ctx.user, input)),
  get: authedProcedure
    .input(idParam)
    .output(personalApiKeySchema)
    .query(({ ctx, input }) => personalApiKeys.getKey(ctx.deps, ctx.user, input.id)),
  update: authedProcedure
    .input(idParam.extend({ data: personalApiKeyUpdateSchema }))
    .output(personalApiKeySchema)
    .mutation(({ ctx, input }) => personalApiKeys.updateKey(ctx.deps, ctx.user, input.id, input.data)),
  roll: authedProcedure
    .input(idParam)
    .output(personalApiKeySchema)
    .mutation(({ ctx, input }) => personalApiKeys.rollKey(ctx.deps, ctx.user, input.id)),
  delete: authedProcedure
    .input(idParam)
    .output(z.void())
    .mutation(({ ctx, input }) => personalApiKeys.deleteKey(ctx.deps, ctx.user, input.id)),
})

const memberParam = z.object({ user_id: textParam })

export const organizationMembersRouter = router({
  list: organizationProcedure
    .output(z.array(organizationMemberSchema))
    .query(({ ctx }) => organizationMembers.listMembers(ctx.deps, ctx.organization)),
  update: organizationProcedure
    .input(memberParam.extend({ data: organizationMemberUpdateSchema }))
    .output(organizationMemberSchema)
    .mutation(({ ctx, input }) => organizationMembers.updateMember(ctx.deps, ctx.user, ctx.organization, input.user_id, input.data)),
  remove: organizationProcedure
    .input(memberParam)
    .output(z.void())
    .mutation(({ ctx, input }) => organizationMembers.removeMember(ctx.deps, ctx.user, ctx.organization, input.user_id)),
})

export const organizationInvitesRouter = router({
  list: organizationProcedure
    .output(z.array(organizationInviteSchema))
    .query(({ ctx }) => organizationInvites.listInvites(ctx.deps, ctx.organization)),
  create: organizationProcedure
    .input(organizationInviteCreateSchema)
    .output(organizationInviteSchema)
    .mutation(({ ctx, input }) => organizationInvites.createInvite(ctx.deps, ctx.user, ctx.organization, input)),
  delete: organizationProcedure
    .input(idParam)
    .output(z.void())
    .mutation(({ ctx, input }) => organizationInvites.deleteInvite(ctx.deps, ctx.organization, input.id)),
  accept: authedProcedure
    .input(z.object({ invite_id: textParam }))
    .output(z.object({ organization_id: z.string(), level: z.number().int() }))
    .mutation(({ ctx, input }) => organizationInvites.acceptInvite(ctx.deps, ctx.user, input.invite_id)),
})
