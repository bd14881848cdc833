import { problems } from '@burrow/contracts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** Up to nine digits: what fits a serial (int4) column. */
const SERIAL_ID = /^\d{1,9}$/

export const isUuid = (value: string): boolean => UUID.test(value)

/** The integer id a URL segment names, or null if it is not one (such a URL names nothing). */
export const serialId = (value: string): number | null => (SERIAL_ID.test(value) ? Number(value) : null)

/** The integer id of a resource URL; anything else names no resource, so 404. */
export function serialIdOrNotFound(value: string): number {
  const id = serialId(value)
  if (id === null) throw problems.notFound()
  return id
}

/** A URL path segment decoded; undefined when its percent-encoding is malformed (such a URL names nothing). */
export function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}
