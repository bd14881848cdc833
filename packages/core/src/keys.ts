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

/** A personal API key: `phx_` and 35 random bytes in base62. */
export function generatePersonalApiKey(): string {
  return `phx_${base62(randomBytes(35))}`
}

/** What is stored for a personal key: its SHA-256, never the key itself. */
export function personalApiKeySecureValue(key: string): string {
  return `sha256$${createHash('sha256').update(key).digest('hex')}`
}

export function maskPersonalApiKey(key: string): string {
  return `${key.slice(0, 4)}...${key.slice(-4)}`
}
