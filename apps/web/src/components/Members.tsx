import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { trpc } from '../api'
import { DataTable } from './DataTable'
import { ListStates, Refusal } from './States'

/** PostHog's membership levels and their names. */
const LEVELS = [
  [1, 'Member'],
  [8, 'Admin'],
  [15, 'Owner'],
] as const
type Level = (typeof LEVELS)[number][0]
const levelName = (level: number) => LEVELS.find(([value]) => value === level)?.[1] ?? String(level)

const CURRENT = { organization_id: '@current' }
const MEMBERS = ['organization-members'] as const
const INVITES = ['organization-invites'] as const

/** The link an invitee opens to set their password: the service sends no email, so it is handed over. */
const inviteLink = (origin: string, id: string) => `${origin}/signup/${id}`

/** Settings' members of the current organization, with their levels, and the invites not yet used. */
export function Members() {
  const queryClient = useQueryClient()
  const members = useQuery({
    queryKey: MEMBERS,
    queryFn: ({ signal }) => trpc.organizationMembers.list.query(CURRENT, { signal }),
  })
  const invites = useQuery({
    queryKey: INVITES,
    queryFn: ({ signal }) => trpc.organizationInvites.list.query(CURRENT, { signal }),
  })
  const withdraw = useMutation({
    mutationFn: (id: string) => trpc.organizationInvites.delete.mutate({ ...CURRENT, id }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: INVITES }),
  })
  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      <ListStates query={members} what="the members" rowsOf={(data) => data} empty={<p>No members.</p>}>
        {(data) => (
          <DataTable
            label="Members"
            rows={data}
            rowKey={(member) => member.id}
            columns={[
              { header: 'Name', cell: (member) => [member.user.first_name, member.user.last_name].filter(Boolean).join(' ') },
              { header: 'Email', cell: (member) => member.user.email },
              { header: 'Level', cell: (member) => levelName(member.level) },
              { header: 'Joined', cell: (member) => new Date(member.joined_at).toLocaleDateString() },
            ]}
          />
        )}
      </ListStates>
      <InviteForm onInvited={() => void queryClient.invalidateQueries({ queryKey: INVITES })} />
      <h3>Invites</h3>
      <ListStates query={invites} what="the invites" rowsOf={(data) => data} empty={<p>No invites waiting.</p>}>
        {(data) => (
          <DataTable
            label="Invites"
            rows={data}
            rowKey={(invite) => invite.id}
            columns={[
              { header: 'Email', cell: (invite) => invite.target_email },
              { header: 'Level', cell: (invite) => levelName(invite.level) },
              {
                header: 'Link',
                cell: (invite) => (invite.is_expired ? 'expired' : <code>{inviteLink(window.location.origin, invite.id)}</code>),
              },
              {
                header: <span className="visually-hidden">Actions</span>,
                cell: (invite) => (
                  <button
                    type="button"
                    className="danger"
                    disabled={withdraw.isPending}
                    onClick={() => {
                      if (window.confirm(`Withdraw the invite to ${invite.target_email}? Its link stops working.`))
                        withdraw.mutate(invite.id)
                    }}
                  >
                    Withdraw<span className="visually-hidden"> the invite to {invite.target_email}</span>
                  </button>
                ),
              },
            ]}
          />
        )}
      </ListStates>
      {withdraw.isError && <Refusal error={withdraw.error} />}
    </section>
  )
}

function InviteForm({ onInvited }: { onInvited: () => void }) {
  const [email, setEmail] = useState('')
  const [firstName, setFirstName] = useState('')
  const [level, setLevel] = useState<Level>(1)
  const invite = useMutation({
    mutationFn: () =>
      trpc.organizationInvites.create.mutate({
        ...CURRENT,
        target_email: email.trim(),
        level,
        ...(firstName ? { first_name: firstName } : {}),
      }),
    onSuccess: () => {
      setEmail('')
      setFirstName('')
      onInvited()
    },
  })
  return (
    <form
      className="notice"
      aria-labelledby="invite-heading"
      onSubmit={(e) => {
        e.preventDefault()
        invite.mutate()
      }}
    >
      <h3 id="invite-heading">Invite someone</h3>
      <div className="stack">
        <label className="field">
          <span>Email</span>
          <input type="email" required maxLength={254} value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label className="field">
          <span>First name (optional)</span>
          <input maxLength={30} value={firstName} onChange={(e) => setFirstName(e.target.value)} />
        </label>
        <label className="field">
          <span>Level</span>
          <select value={level} onChange={(e) => setLevel(Number(e.target.value) as Level)}>
            {LEVELS.map(([value, name]) => (
              <option key={value} value={value}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <div>
          <button type="submit" className="primary" disabled={invite.isPending}>
            Create invite
          </button>
        </div>
        {invite.isError && <Refusal error={invite.error} />}
        {invite.data && (
          <div role="status">
            <p>Send {invite.data.target_email} this link; it works once, until the invite expires:</p>
            <code className="secret" data-testid="invite-link">
              {inviteLink(window.location.origin, invite.data.id)}
            </code>
          </div>
        )}
      </div>
    </form>
  )
}
