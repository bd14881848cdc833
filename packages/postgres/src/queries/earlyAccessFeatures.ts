import type { Sql } from '../connect'
import type { PageWindow } from './pages'

export interface EarlyAccessFeatureRow {
  id: string
  project_id: number
  feature_flag_id: number | null
  name: string
  description: string
  stage: string
  documentation_url: string
  payload: unknown
  created_at: Date
}

export interface EarlyAccessFeatureWrite {
  name: string
  description: string
  stage: string
  documentation_url: string
  payload: unknown
}

export async function listEarlyAccessFeatures(
  sql: Sql,
  projectId: number,
  page: PageWindow,
): Promise<{ count: number; rows: EarlyAccessFeatureRow[] }> {
  const [rows, [total]] = await Promise.all([
    sql<EarlyAccessFeatureRow[]>`
      select * from early_access_features where project_id = ${projectId} order by created_at, id limit ${page.limit} offset ${page.offset}`,
    sql<{ n: number }[]>`select count(*)::int as n from early_access_features where project_id = ${projectId}`,
  ])
  return { count: total?.n ?? 0, rows: [...rows] }
}

/** The project's features in these stages with the key of their flag, for posthog-js. */
export async function publicEarlyAccessFeatures(
  sql: Sql,
  projectId: number,
  stages: readonly string[],
): Promise<Array<EarlyAccessFeatureRow & { flag_key: string | null }>> {
  const rows = await sql<Array<EarlyAccessFeatureRow & { flag_key: string | null }>>`
    select e.*, f.key as flag_key from early_access_features e left join feature_flags f on f.id = e.feature_flag_id
    where e.project_id = ${projectId} and e.stage = any(${stages}::text[])
    order by e.created_at, e.id`
  return [...rows]
}

export async function findEarlyAccessFeature(sql: Sql, projectId: number, id: string): Promise<EarlyAccessFeatureRow | undefined> {
  const [row] = await sql<EarlyAccessFeatureRow[]>`select * from early_access_features where project_id = ${projectId} and id = ${id}`
  return row
}

/** Whether a feature already uses the flag. */
export async function flagHasFeature(sql: Sql, flagId: number): Promise<boolean> {
  const [row] = await sql<
    { taken: boolean }[]
  >`select exists (select 1 from early_access_features where feature_flag_id = ${flagId}) as taken`
  return row?.taken ?? false
}

export async function insertEarlyAccessFeature(
  sql: Sql,
  projectId: number,
  feature: EarlyAccessFeatureWrite & { id: string; feature_flag_id: number },
): Promise<EarlyAccessFeatureRow> {
  const [row] = await sql<EarlyAccessFeatureRow[]>`
    insert into early_access_features (id, project_id, feature_flag_id, name, description, stage, documentation_url, payload)
    values (${feature.id}, ${projectId}, ${feature.feature_flag_id}, ${feature.name}, ${feature.description}, ${feature.stage},
      ${feature.documentation_url}, ${sql.json(feature.payload as never)})
    returning *`
  return row!
}

export async function updateEarlyAccessFeature(
  sql: Sql,
  projectId: number,
  id: string,
  write: Partial<EarlyAccessFeatureWrite>,
): Promise<EarlyAccessFeatureRow | undefined> {
  const [row] = await sql<EarlyAccessFeatureRow[]>`
    update early_access_features set
      name = coalesce(${write.name ?? null}, name),
      description = coalesce(${write.description ?? null}, description),
      stage = coalesce(${write.stage ?? null}, stage),
      documentation_url = coalesce(${write.documentation_url ?? null}, documentation_url),
      payload = case when ${write.payload !== undefined} then ${sql.json((write.payload ?? null) as never)} else payload end
    where project_id = ${projectId} and id = ${id}
    returning *`
  return row
}

export async function deleteEarlyAccessFeature(sql: Sql, projectId: number, id: string): Promise<boolean> {
  const rows = await sql`delete from early_access_features where project_id = ${projectId} and id = ${id} returning id`
  return rows.length > 0
}
