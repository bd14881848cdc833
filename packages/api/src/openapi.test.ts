import { join } from 'node:path'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import openapiTS, { astToString } from 'openapi-typescript'
import ts from 'typescript'
import { beforeAll, describe, expect, it } from 'vitest'
import { openApiDocument } from './openapi'
import { restRoutes } from './routes'

const document = openApiDocument({ serverUrl: 'http://localhost:8000' })

interface Operation {
  operationId: string
  security: Array<Record<string, string[]>>
}
const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({
    path,
    method,
    operationId: operation.operationId,
    security: operation.security,
  })),
)

describe('the OpenAPI document', () => {
  it('lints clean against the recommended rules of Redocly', async () => {
    const config = await createConfig({
      extends: ['recommended'],
      rules: {
        // PostHog's paths end in a slash (`/api/projects/`); clients call them so, and they stay.
        'no-path-trailing-slash': 'off',
      },
    })
    const found = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config })
    const errors = found.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`)
    expect(errors).toEqual([])
  })

  it('gives every operation its own operationId, including the paths that share a procedure', () => {
    const ids = operations.map((o) => o.operationId)
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([])
    const byPath = (path: string) => operations.find((o) => o.path === path && o.method === 'get')?.operationId
    expect(byPath('/api/projects/{project_id}/feature_flags/local_evaluation/')).toBe('featureFlags_localEvaluation')
    expect(byPath('/api/feature_flag/local_evaluation/')).toBe('featureFlags_localEvaluation_legacy')
    expect(byPath('/flags/definitions/')).toBe('featureFlags_definitions')
  })

  it('names the scope a personal API key needs for each operation, as the route table declares it', () => {
    for (const route of restRoutes) {
      const path = route.path.replace(/:(\w+)/g, '{$1}')
      const found = operations.find((o) => o.path === path && o.method === route.method.toLowerCase())
      expect(found?.security, `${route.method} ${route.path}`).toEqual([{ PersonalApiKey: [route.scope] }])
    }
    const byPath = (path: string, method: string) => operations.find((o) => o.path === path && o.method === method)?.security
    expect(byPath('/api/projects/{project_id}/feature_flags/', 'post')).toEqual([{ PersonalApiKey: ['feature_flag:write'] }])
    expect(byPath('/api/projects/{project_id}/query/', 'post')).toEqual([{ PersonalApiKey: ['query:read'] }])
  })

  it('describes one operation per row of the route table', () => {
    expect(operations).toHaveLength(restRoutes.length)
  })

  it('names the server generated clients send their requests to', () => {
    expect(document.servers).toEqual([{ url: 'http://localhost:8000' }])
  })
})

describe('a client generated from the document', () => {
  // Beside the sources, so that the client's imports resolve from this package's node_modules.
  const dir = join(import.meta.dirname, 'generated-client')
  const schemaFile = join(dir, 'schema.d.ts')
  const clientFile = join(dir, 'client.ts')
  let schema: string

  beforeAll(async () => {
    schema = astToString(await openapiTS(JSON.stringify(document), { silent: true }))
  })

  it('has a type for every path of the route table', () => {
    for (const route of restRoutes) expect(schema).toContain(`"${route.path.replace(/:(\w+)/g, '{$1}')}": {`)
  })

  it('type-checks calls that follow the document and refuses those that do not', () => {
    const client = `
      import createClient from 'openapi-fetch'
      import type { operations, paths } from './schema'

      const client = createClient<paths>({ baseUrl: 'http://localhost:8000' })

      export async function calls() {
        const cohorts = await client.GET('/api/projects/{project_id}/cohorts/', { params: { path: { project_id: '1' }, query: { limit: 10 } } })
        const count: number | undefined = cohorts.data?.count
        const code: string | undefined = cohorts.error?.code
        const created = await client.POST('/api/projects/{project_id}/feature_flags/', {
          params: { path: { project_id: '1' } },
          body: { key: 'new-checkout' },
        })
        const key: string | undefined = created.data?.key
        const definitions: operations['featureFlags_definitions']['responses'][200]['content']['application/json'] | undefined = (
          await client.GET('/flags/definitions/', { params: { query: { token: 'phc_x' } } })
        ).data
        return { count, code, key, definitions }
      }

      export async function mistakes() {
        // @ts-expect-error: the API has no such path
        await client.GET('/api/projects/{project_id}/nothing/', { params: { path: { project_id: '1' } } })
        // @ts-expect-error: a project's cohorts need the project
        await client.GET('/api/projects/{project_id}/cohorts/', { params: { path: {} } })
        // @ts-expect-error: projects are not deleted through their list
        await client.DELETE('/api/projects/')
      }
    `
    const virtual = new Map([
      [schemaFile, schema],
      [clientFile, client],
    ])
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: [],
      skipLibCheck: true,
    }
    const host = ts.createCompilerHost(options)
    const readFile = host.readFile.bind(host)
    const fileExists = host.fileExists.bind(host)
    const getSourceFile = host.getSourceFile.bind(host)
    const directoryExists = host.directoryExists?.bind(host)
    host.readFile = (file) => virtual.get(file) ?? readFile(file)
    host.fileExists = (file) => virtual.has(file) || fileExists(file)
    host.directoryExists = (path) => path === dir || (directoryExists?.(path) ?? true)
    host.getSourceFile = (file, language, onError) => {
      const text = virtual.get(file)
      return text === undefined ? getSourceFile(file, language, onError) : ts.createSourceFile(file, text, language)
    }
    const program = ts.createProgram([clientFile], options, host)
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
    expect(diagnostics).toEqual([])
  })
})
