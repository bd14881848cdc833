import { z } from 'zod'
import { appRouter, type ProcedurePath } from './router'

/** What a procedure declares: its input parsers and its output schema. */
export interface ProcedureDef {
  inputs: z.ZodType[]
  output?: z.ZodType
}

export function procedureDef(path: ProcedurePath): ProcedureDef {
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: ProcedureDef }>
  const procedure = procedures[path]
  if (!procedure) throw new Error(`no procedure ${path}`)
  return procedure._def
}

/** The top-level fields of what a procedure answers (of each result, for a page). */
export function outputFields(path: ProcedurePath, paginated: boolean): string[] {
  let schema: unknown = procedureDef(path).output
  if (paginated && schema instanceof z.ZodObject) schema = (schema.shape.results as z.ZodArray<z.ZodType>).element
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : []
}
