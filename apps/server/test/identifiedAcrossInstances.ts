import type { Sql } from '@burrow/postgres'
import { waitFor } from '@burrow/testing'
import { expect } from 'vitest'

/** Sends a batch of one project's events to the instance at `base`, expecting it acknowledged. */
export type SendBatch = (base: string, events: Array<Record<string, unknown>>) => Promise<void>

/**
 * The persons race of two instances behind a load balancer: both see each user's anonymous id
 * for the first time at once, then one identifies the user while the other sees the identified
 * id's first event (with a `$set`).
 */
export async function identifyThroughBoth(send: SendBatch, [one, two]: [string, string], users: number[]): Promise<void> {
  await Promise.all([
    ...users.map((k) => send(one, [{ event: '$pageview', distinct_id: `anon-${k}`, properties: { $set_once: { landing: `/a/${k}` } } }])),
    ...users.map((k) => send(two, [{ event: '$pageview', distinct_id: `anon-${k}` }])),
  ])
  await Promise.all([
    ...users.map((k) =>
      send(k % 2 ? one : two, [{ event: '$identify', distinct_id: `user-${k}`, properties: { $anon_distinct_id: `anon-${k}` } }]),
    ),
    ...users.map((k) => send(k % 2 ? two : one, [{ event: 'upgraded', distinct_id: `user-${k}`, properties: { $set: { plan: 'pro' } } }])),
  ])
}

/** Once both instances are done: in PostgreSQL, one identified person per user, holding both its ids and both its properties. */
export async function expectOnePersonPerUser(sql: Sql, projectId: number, users: number[]): Promise<void> {
  const owners = await waitFor(
    async () => {
      const rows = await sql<{ ids: string[]; properties: Record<string, unknown>; is_identified: boolean }[]>`
        select array_agg(d.distinct_id order by d.distinct_id) as ids, p.properties, p.is_identified
        from persons p join person_distinct_ids d on d.person_id = p.id
        where p.project_id = ${projectId} group by p.id`
      // Each instance processes the persons of its events when it stores them, on its own time:
      // the state settles once every event was processed (a lost change shows as a timeout).
      const settled =
        rows.length === users.length &&
        rows.every((r) => r.ids.length === 2 && r.properties.plan === 'pro' && r.properties.landing !== undefined && r.is_identified)
      return settled ? rows : undefined
    },
    { what: `${users.length} persons with two distinct ids and both properties each`, timeoutMs: 30_000, intervalMs: 250 },
  )
  for (const k of users) {
    const owner = owners.find((o) => o.ids.includes(`anon-${k}`))
    expect(owner?.ids).toEqual([`anon-${k}`, `user-${k}`])
    expect(owner?.properties).toEqual({ landing: `/a/${k}`, plan: 'pro' })
  }
  const [persons] = await sql<{ n: number }[]>`select count(*)::int as n from persons where project_id = ${projectId}`
  expect(persons?.n).toBe(users.length)
}
