import { SERVICE_VERSION } from '@burrow/core'
import { z } from 'zod'
import { procedureDef, type ProcedureDef } from './procedures'
import { restRoutes, type RestRoute } from './routes'

type JsonSchema = Record<string, unknown>

const errorSchema: JsonSchema = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    code: { type: 'string' },
    detail: { type: 'string' },
    attr: { type: ['string', 'null'] },
  },
  required: ['type', 'code', 'detail', 'attr'],
}

const errorResponses = {
  '400': { description: 'Invalid input (`validation_error`, with the field in `attr`)' },
  '401': { description: 'No personal API key, or an unknown one (`authentication_error`)' },
  '403': { description: 'Not allowed for this user (`authentication_error`/`permission_denied`)' },
  '404': { description: 'No such resource, or one of another organization (`invalid_request`/`not_found`)' },
}

/**
 * Collects the `$defs` of generated schemas into `components.schemas`. zod emits a definition
 * for every recursive type; those with a registered id (`.meta({ id })`) keep it as their name.
 */
class SharedDefinitions {
  readonly components: Record<string, JsonSchema> = {}
  private anonymous = new Map<string, string>()

  hoist(schema: JsonSchema): JsonSchema {
    const { $defs, $schema: _dialect, ...rest } = schema as JsonSchema & { $defs?: Record<string, JsonSchema> }
    const renames = new Map<string, string>()
    for (const [local, def] of Object.entries($defs ?? {})) renames.set(local, this.nameFor(local, def))
    const rewrite = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(rewrite)
      if (node === null || typeof node !== 'object') return node
      return Object.fromEntries(
        Object.entries(node).map(([key, value]) => {
          if (key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/')) {
            return [key, `#/components/schemas/${renames.get(value.slice('#/$defs/'.length))}`]
          }
          return [key, rewrite(value)]
        }),
      )
    }
    for (const [local, def] of Object.entries($defs ?? {})) this.components[renames.get(local)!] ??= rewrite(def) as JsonSchema
    return rewrite(rest) as JsonSchema
  }

  private nameFor(local: string, def: JsonSchema): string {
    if (!local.startsWith('__schema')) return local
    const key = JSON.stringify(def)
    let name = this.anonymous.get(key)
    if (!name) {
      name = `Shared${this.anonymous.size + 1}`
      this.anonymous.set(key, name)
    }
    return name
  }
}

/** The properties of a procedure's input, from all of its `.input()` parsers merged. */
function inputProperties(def: ProcedureDef, shared: SharedDefinitions): { properties: Record<string, JsonSchema>; required: string[] } {
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  for (const parser of def.inputs) {
    const schema = shared.hoist(z.toJSONSchema(parser, { io: 'input', unrepresentable: 'any' }))
    Object.assign(properties, (schema.properties as Record<string, JsonSchema>) ?? {})
    required.push(...((schema.required as string[]) ?? []))
  }
  return { properties, required }
}

/** The list envelope: with `count` for offset pages, without it for cursor pages (as DRF's CursorPagination). */
function envelopeOf(item: JsonSchema, cursor: boolean): JsonSchema {
  const links = {
    next: { type: ['string', 'null'], format: 'uri' },
    previous: { type: ['string', 'null'], format: 'uri' },
    results: { type: 'array', items: item },
  }
  if (cursor) return { type: 'object', properties: links, required: ['next', 'previous', 'results'] }
  return { type: 'object', properties: { count: { type: 'integer' }, ...links }, required: ['count', 'next', 'previous', 'results'] }
}

function successResponse(route: RestRoute, def: ProcedureDef, shared: SharedDefinitions): Record<string, unknown> {
  const status = String(route.status ?? 200)
  if (route.status === 204) return { [status]: { description: 'Done; no body' } }
  if (route.contentType) return { [status]: { description: 'OK', content: { [route.contentType]: { schema: { type: 'string' } } } } }
  if (!def.output) throw new Error(`procedure ${route.procedure} has no output schema`)
  let schema = shared.hoist(z.toJSONSchema(def.output, { io: 'output', unrepresentable: 'any' }))
  if (route.paginated) {
    const page = schema as { properties: { results: { items: JsonSchema } } }
    schema = envelopeOf(page.properties.results.items, route.paginated === 'cursor')
  }
  const content: Record<string, unknown> = { 'application/json': { schema } }
  if (route.csv) content['text/csv'] = { schema: { type: 'string' } }
  return { [status]: { description: 'OK', content } }
}

function operation(route: RestRoute, operationId: string, shared: SharedDefinitions): Record<string, unknown> {
  const def = procedureDef(route.procedure)
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!)
  const input = inputProperties(def, shared)
  const parameters: unknown[] = pathParams.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }))
  if (route.query) {
    for (const [name, schema] of Object.entries(input.properties)) {
      if (pathParams.includes(name)) continue
      parameters.push({ name, in: 'query', required: false, schema })
    }
    if (route.csv) parameters.push({ name: 'format', in: 'query', required: false, schema: { enum: ['json', 'csv'] } })
  }
  let requestBody: unknown
  if (route.body === 'data' || route.body === 'list') {
    requestBody = { required: true, content: { 'application/json': { schema: input.properties.data ?? { type: 'object' } } } }
  } else if (route.body === 'fields') {
    const fields = Object.fromEntries(Object.entries(input.properties).filter(([name]) => !pathParams.includes(name)))
    requestBody = { required: false, content: { 'application/json': { schema: { type: 'object', properties: fields } } } }
  }
  return {
    operationId,
    summary: route.summary,
    tags: [route.procedure.split('.')[0]],
    parameters,
    ...(requestBody ? { requestBody } : {}),
    responses: {
      ...successResponse(route, def, shared),
      ...Object.fromEntries(
        Object.entries(errorResponses).map(([status, r]) => [
          status,
          { ...r, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        ]),
      ),
    },
    // OpenAPI 3.1 lets a bearer scheme's requirement list roles: the scope a key needs, as PostHog's document says it.
    security: [{ PersonalApiKey: [route.scope] }],
    description: `Required API key scope: \`${route.scope}\` (a \`:write\` scope grants its \`:read\`; \`*\` grants all).`,
    ...(route.headers?.deprecation ? { deprecated: true } : {}),
  }
}

/** The paths and components, which depend only on the route table and the schemas fixed at load. */
function describeRoutes(): { paths: Record<string, Record<string, unknown>>; components: Record<string, unknown> } {
  const shared = new SharedDefinitions()
  const paths: Record<string, Record<string, unknown>> = {}
  const seenIds = new Set<string>()
  for (const route of restRoutes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}')
    let operationId = route.operationId ?? route.procedure.replace('.', '_')
    if (!route.operationId && seenIds.has(operationId)) operationId = `${operationId}_${route.method.toLowerCase()}`
    // Generated clients name their methods after these; two alike would make one of them unreachable.
    if (seenIds.has(operationId)) throw new Error(`${route.method} ${route.path}: operationId ${operationId} is taken`)
    seenIds.add(operationId)
    paths[path] ??= {}
    paths[path][route.method.toLowerCase()] = operation(route, operationId, shared)
  }
  return {
    paths,
    components: {
      schemas: { Error: errorSchema, ...shared.components },
      securitySchemes: { PersonalApiKey: { type: 'http', scheme: 'bearer', description: 'A personal API key (phx_...)' } },
    },
  }
}

let described: ReturnType<typeof describeRoutes> | undefined

/**
 * The OpenAPI 3.1 description of the REST API, generated from the route table and the zod schemas.
 * `serverUrl` is where clients generated from it send their requests: the service's public origin.
 */
export function openApiDocument(options: { serverUrl: string }): Record<string, unknown> {
  described ??= describeRoutes()
  return {
    openapi: '3.1.0',
    info: { title: 'Burrow private API', version: SERVICE_VERSION },
    servers: [{ url: options.serverUrl }],
    paths: described.paths,
    components: described.components,
    security: [{ PersonalApiKey: [] }],
  }
}
