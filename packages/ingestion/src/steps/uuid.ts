import { v7 as uuidv7 } from 'uuid'
import { ok, type Step } from '../pipeline'

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i

function canonicalUuid(value: string): string {
  const hex = value.replaceAll('-', '').toLowerCase()
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** The client's uuid when it is a valid one (clients send it to make retries idempotent), else a UUIDv7. */
export const assignUuid: Step = {
  name: 'assign_uuid',
  run(event) {
    const value = event.input.uuid
    event.uuid = typeof value === 'string' && UUID.test(value) ? canonicalUuid(value) : uuidv7()
    return ok
  },
}
