import { BlockList, isIP } from 'node:net'

/**
 * Whose `X-Forwarded-For` is believed: `'any'` (every peer: a port only a proxy reaches) or the
 * addresses and CIDR ranges of the proxies in front of the service. Plain data, so capture
 * threads receive it as it is.
 */
export type ProxyTrust = 'any' | readonly string[]

/** A list of addresses and ranges (`10.0.0.0/8`, `2001:db8::/32`, `127.0.0.1`); throws on anything else. */
export function proxyList(entries: readonly string[]): BlockList {
  const list = new BlockList()
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/')
    const family = isIP(address)
    if (family === 0) throw new Error(`${JSON.stringify(entry)} is not an address or a CIDR range`)
    const type = family === 4 ? 'ipv4' : 'ipv6'
    if (bits === undefined) list.addAddress(address, type)
    else {
      const prefix = Number(bits)
      if (!/^\d{1,3}$/.test(bits) || prefix > (family === 4 ? 32 : 128))
        throw new Error(`${JSON.stringify(entry)} has no valid prefix length`)
      list.addSubnet(address, prefix, type)
    }
  }
  return list
}

const lists = new WeakMap<readonly string[], BlockList>()

/** Whether `address` (a peer) is a proxy whose forwarding headers are believed. */
export function trusts(trust: ProxyTrust, address: string): boolean {
  if (trust === 'any') return true
  if (trust.length === 0) return false
  let list = lists.get(trust)
  if (list === undefined) {
    list = proxyList(trust)
    lists.set(trust, list)
  }
  const family = isIP(address)
  if (family === 0) return false
  // An IPv4 peer may be written as IPv4-mapped IPv6; BlockList matches either form against both.
  return list.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/**
 * The address an `X-Forwarded-For` entry names: a plain IPv4 or IPv6 address, or one with a port
 * (`203.0.113.9:51234`, `[2001:db8::1]:443`) as some proxies write it; anything else names none.
 */
function addressOf(entry: string): string | undefined {
  const text = entry.trim()
  if (isIP(text)) return text
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text)
  if (bracketed?.[1] && isIP(bracketed[1]) === 6) return bracketed[1]
  const withPort = /^([^:]+):\d{1,5}$/.exec(text)
  if (withPort?.[1] && isIP(withPort[1]) === 4) return withPort[1]
  return undefined
}

/** Entries of an `X-Forwarded-For` read at most: each proxy adds one. */
const MAX_HOPS = 20

/**
 * The client's address. `X-Forwarded-For` is read from its end (the entry the nearest proxy
 * wrote) only while the hop that wrote it is a trusted proxy, so a client cannot name its own
 * address by sending the header: the answer is the first hop no trusted proxy vouches for. An
 * entry that is not an address ends the walk, and the last address vouched for is kept.
 */
export function clientAddress(forwardedFor: string | undefined, peer: string | undefined, trust: ProxyTrust): string | undefined {
  let client = peer || undefined
  if (!forwardedFor || client === undefined) return client
  const entries = forwardedFor.split(',').slice(-MAX_HOPS)
  for (let i = entries.length - 1; i >= 0; i--) {
    if (!trusts(trust, client)) break
    const address = addressOf(entries[i]!)
    if (address === undefined) break
    client = address
  }
  return client
}
