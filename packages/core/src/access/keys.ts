import { createHash, randomBytes } from 'node:crypto'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

function base62(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString('hex')}`)
  let out = ''
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out
    n /= 62n
  }
  return out || '0'
}

/** A project API token as PostHog makes them: `phc_` and 32 random bytes in base62. */
export function generateProjectToken(): string {
  return `phc_${base62(randomBytes(32))}`
}

const PERSONAL_API_KEY_PREFIX = 'phx_'

/** A personal API key: `phx_` and 35 random bytes in base62. */
export function generatePersonalApiKey(): string {
  return `${PERSONAL_API_KEY_PREFIX}${base62(randomBytes(35))}`
}

/** Whether a key sent to a public endpoint is a personal API key rather than a project token. */
export function isPersonalApiKey(key: string): boolean {
  return key.startsWith(PERSONAL_API_KEY_PREFIX)
}

/** What is stored for a personal key: its SHA-256, never the key itself. */
export function personalApiKeySecureValue(key: string): string {
  return `sha256$${createHash('sha256').update(key).digest('hex')}`
}

export function maskPersonalApiKey(key: string): string {
  return `${key.slice(0, 4)}...${key.slice(-4)}`
}
