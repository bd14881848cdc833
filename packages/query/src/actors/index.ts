import { currentDistinctIdsSql, SqlParams } from '@burrow/clickhouse'
import { ACTORS_DEFAULT_LIMIT, PERSON_PROPERTY_COLUMN, problems, type ActorsQuery } from '@burrow/contracts'
import type { QueryContext } from '../context'
import type { RunnerOutput } from '../runnerOutput'
import { num, select, TEAM } from '../sql'
import { insightActorsSql, type PointActors } from './sources'

/** The persons of the team now: the latest row of each id, the deleted ones left out. */
const PERSONS_SQL = `SELECT id, argMax(properties, version) AS properties, argMax(created_at, version) AS created_at,
    argMax(is_identified, version) AS is_identified, argMax(is_deleted, version) AS deleted
  FROM person WHERE team_id = ${TEAM} GROUP BY id HAVING deleted = 0`

/** A person property as text (strings as they are, other values as their JSON), null when the person has none. */
function propertyTextSql(key: string, params: SqlParams): string {
  const k = params.add('String', key)
  return `if(JSONHas(p.properties, ${k}), if(JSONType(p.properties, ${k}) = 'String', JSONExtractString(p.properties, ${k}), JSONExtractRaw(p.properties, ${k})), NULL)`
}

/** PostHog's distinct ids that look generated (a UUID): shown after the ones a user chose, as its person serializer does. */
const looksAnonymous = (id: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)

/** How many distinct ids each person carries in a row, as PostHog's actor lookup does. */
const DISTINCT_IDS_PER_PERSON = 101

const TYPES: Record<string, string> = {
  person: 'UUID',
  actor: 'UUID',
  id: 'UUID',
  created_at: "DateTime64(3, 'UTC')",
  is_identified: 'Bool',
  'person.$delete': 'UInt8',
  event_count: 'UInt64',
  event_distinct_ids: 'Array(String)',
  appearances: 'Array(UInt32)',
}

interface PersonRow {
  id: string
  properties: string
  created_at: string
  is_identified: number | string
  event_count?: number | string
  event_distinct_ids?: string[]
  appearances?: Array<number | string>
}

/**
 * PostHog's ActorsQuery for persons: the project's persons (its persons list), or with `source`
 * the persons behind one point of an insight, each row the `select` columns (the person as
 * PostHog's object by default), searched, ordered and paged as PostHog's runner does.
 */
export async function runActors(ctx: QueryContext, query: ActorsQuery): Promise<RunnerOutput> {
  const params = new SqlParams()
  const point: PointActors | undefined = query.source ? await insightActorsSql(ctx, query.source, params) : undefined
  const columns =
    query.select ??
    (point?.columns.includes('event_distinct_ids')
      ? ['person', 'id', 'person.$delete', 'event_distinct_ids']
      : ['person', 'id', 'person.$delete'])
  for (const [i, column] of columns.entries()) {
    if ((column === 'event_count' || column === 'event_distinct_ids') && !point?.columns.includes(column)) {
      throw problems.validation(`query__select__${i}`, `The column ${column} is only answered for the points of a trend.`)
    }
    if (column === 'appearances' && !point?.columns.includes(column)) {
      throw problems.validation(`query__select__${i}`, 'The column appearances is only answered for a retention cohort.')
    }
  }

  const conditions: string[] = []
  const search = query.search?.trim()
  if (search) {
    const pattern = params.add('String', `%${search}%`)
    conditions.push(`(ilike(ifNull(${propertyTextSql('email', params)}, ''), ${pattern})
      OR ilike(ifNull(${propertyTextSql('name', params)}, ''), ${pattern})
      OR ilike(toString(p.id), ${pattern})
      OR p.id IN (SELECT person_id FROM (${currentDistinctIdsSql(TEAM)}) WHERE ilike(distinct_id, ${pattern})))`)
  }
  const orderBy = orderSql(query, columns, params, point !== undefined)
  const limit = query.limit ?? ACTORS_DEFAULT_LIMIT
  const offset = query.offset ?? 0
  const extra = point ? point.columns.map((c) => `, s.${c} AS ${c}`).join('') : ''
  const sql = `SELECT toString(p.id) AS id, p.properties AS properties, p.created_at AS created_at, p.is_identified AS is_identified${extra}
    FROM (${PERSONS_SQL}) AS p
    ${point ? `INNER JOIN (${point.sql}) AS s ON s.actor_id = p.id` : ''}
    ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''}
    ORDER BY ${orderBy}
    LIMIT ${params.add('UInt64', limit + 1)} OFFSET ${params.add('UInt64', offset)}`
  const rows = await select<PersonRow>(ctx, sql, params.values)
  const page = rows.slice(0, limit)
  const distinctIds = await distinctIdsOf(
    ctx,
    page.map((r) => r.id),
  )
  const results = page.map((row) => columns.map((column) => cell(column, row, distinctIds)))
  return {
    results,
    extra: {
      columns,
      types: columns.map((c) => TYPES[c] ?? 'Nullable(String)'),
      hasMore: rows.length > limit,
      limit,
      offset,
      // Rows are joined with the persons they name, so every person of a page is found; counted, as PostHog's, only with a person column.
      missing_actors_count: columns.includes('person') || columns.includes('actor') ? 0 : null,
    },
  }
}

/**
 * The page's order: `orderBy` as given (`person` orders by the email, as PostHog's does), else
 * the newest persons first when `created_at` is a column, else the first column; ties by id.
 */
function orderSql(query: ActorsQuery, columns: string[], params: SqlParams, withSource: boolean): string {
  const expression = (column: string): string => {
    if (column === 'person' || column === 'actor') return propertyTextSql('email', params)
    if (column === 'id' || column === 'actor_id') return 'p.id'
    if (column === 'created_at') return 'p.created_at'
    if (column === 'event_count') {
      if (!withSource) throw problems.validation('query__orderBy', 'event_count is only answered for the points of a trend.')
      return 's.event_count'
    }
    const property = PERSON_PROPERTY_COLUMN.exec(column)?.[1]
    if (property !== undefined) return propertyTextSql(property, params)
    throw problems.validation('query__orderBy', `Ordering by ${column} is not supported.`)
  }
  const parts: string[] = []
  if (query.orderBy?.length) {
    for (const item of query.orderBy.flatMap((o) => o.split(','))) {
      const [column = '', direction = 'ASC'] = item.trim().split(/\s+/)
      parts.push(`${expression(column)} ${direction.toUpperCase() === 'DESC' ? 'DESC' : 'ASC'}`)
    }
  } else if (columns.includes('created_at')) parts.push('p.created_at DESC')
  else {
    const first = columns[0]!
    parts.push(`${first === 'person' || first === 'actor' ? 'p.id' : expression(first)} ASC`)
  }
  parts.push('p.id ASC')
  return parts.join(', ')
}

/** The current distinct ids of each person, the chosen ones before the generated ones. */
async function distinctIdsOf(ctx: QueryContext, ids: string[]): Promise<Map<string, string[]>> {
  if (ids.length === 0) return new Map()
  const params = new SqlParams()
  const rows = await select<{ id: string; distinct_ids: string[] }>(
    ctx,
    `SELECT toString(person_id) AS id, groupArray(${DISTINCT_IDS_PER_PERSON})(distinct_id) AS distinct_ids FROM (
      SELECT distinct_id, person_id FROM (${currentDistinctIdsSql(TEAM)})
      WHERE person_id IN (SELECT toUUID(arrayJoin(${params.add('Array(String)', ids)})))
      ORDER BY distinct_id
    ) GROUP BY person_id`,
    params.values,
  )
  return new Map(rows.map((r) => [r.id, [...r.distinct_ids].sort((a, b) => Number(looksAnonymous(a)) - Number(looksAnonymous(b)))]))
}

/** ClickHouse's DateTime64 text in UTC as ISO 8601. */
const isoOf = (text: string) => `${text.replace(' ', 'T')}Z`

function parseProperties(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** One column of a row, as PostHog's runner answers it. */
function cell(column: string, row: PersonRow, distinctIds: Map<string, string[]>): unknown {
  switch (column) {
    case 'person':
    case 'actor':
      return {
        id: row.id,
        distinct_ids: distinctIds.get(row.id) ?? [],
        properties: parseProperties(row.properties),
        is_identified: num(row.is_identified) === 1,
        created_at: isoOf(row.created_at),
      }
    case 'id':
      return row.id
    case 'created_at':
      return isoOf(row.created_at)
    case 'is_identified':
      return num(row.is_identified) === 1
    case 'person.$delete':
      return 1
    case 'event_count':
      return num(row.event_count)
    case 'event_distinct_ids':
      return row.event_distinct_ids ?? []
    case 'appearances':
      return (row.appearances ?? []).map(num)
    default: {
      const key = PERSON_PROPERTY_COLUMN.exec(column)?.[1]
      const value = key === undefined ? undefined : parseProperties(row.properties)[key]
      return value === undefined ? null : value
    }
  }
}
