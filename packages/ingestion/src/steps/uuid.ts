import { randomFillSync } from 'node:crypto'
import { v7 as uuidv7 } from 'uuid'
import { ok, type Step } from '../pipeline'

/**
 * Random bytes for UUIDv7s, drawn from the system 4 KiB at a time: asking the system for 16
 * bytes per event (what uuid does by default) cost about a tenth of capture's CPU time.
 */
const pool = new Uint8Array(4096)
let poolOffset = pool.length

function randomBytes16(): Uint8Array {
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  poolOffset += 16
  return pool.subarray(poolOffset - 16, poolOffset)
}

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
    event.uuid = typeof value === 'string' && UUID.test(value) ? canonicalUuid(value) : uuidv7({ random: randomBytes16() })
    return ok
  },
}
