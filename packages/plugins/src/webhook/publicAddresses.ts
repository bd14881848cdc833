import { lookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns'
import { BlockList, isIP } from 'node:net'
import { Agent } from 'undici'

/**
 * Ranges a webhook may not reach unless the operator allows it: a plugin config's URL is written
 * by any project member, and the server would otherwise send requests on their behalf to its own
 * network (the cloud's metadata service, PostgreSQL's port, an admin interface on localhost).
 * As PostHog refuses a user-provided URL that resolves to an address that is not public unicast.
 */
const PRIVATE = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48], // NAT64 for local use (RFC 8215): what lies behind it is the operator's network
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  PRIVATE.addSubnet(network, prefix, 'ipv6')

/** Thrown when a webhook's host is, or resolves to, an address it may not reach. */
export class PrivateAddressError extends Error {
  constructor(host: string, address: string) {
    super(
      `${host} is ${host === address ? '' : `resolved to ${address}, `}a private or reserved address; set WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true to allow it`,
    )
    this.name = 'PrivateAddressError'
  }
}

/**
 * Whether an IP address lies in a private or reserved range: IPv4, IPv6, or an IPv6 address
 * that carries an IPv4 one (see `embeddedIpv4`), judged by the IPv4 address it leads to.
 */
export function isPrivateAddress(address: string): boolean {
  // A zone (`fe80::1%eth0`) names an interface, not another address.
  const bare = address.split('%')[0]!
  const family = isIP(bare)
  if (family === 4) return PRIVATE.check(bare, 'ipv4')
  if (family !== 6) return false
  if (PRIVATE.check(bare, 'ipv6')) return true
  return embeddedIpv4(bare).some((v4) => PRIVATE.check(v4, 'ipv4'))
}

/** The eight 16-bit groups of an IPv6 address. */
function ipv6Groups(address: string): number[] {
  // The URL parser writes an IPv6 host canonically: hex groups only (a dotted IPv4 tail
  // converted), with at most one `::`.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1)
  const [head = '', tail] = canonical.split('::')
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)))
  const start = parse(head)
  if (tail === undefined) return start
  const end = parse(tail)
  return [...start, ...new Array<number>(8 - start.length - end.length).fill(0), ...end]
}

const dotted = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`

/**
 * The IPv4 addresses an IPv6 address leads to, where it carries them: IPv4-compatible
 * (`::a.b.c.d`), IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), NAT64's
 * well-known prefix (`64:ff9b::a.b.c.d`), 6to4 (`2002:aabb:ccdd::`) and Teredo (its server, and
 * its client's address, which Teredo stores inverted). A stack or relay that honours one of
 * these forms connects to the IPv4 address, private ones included.
 */
export function embeddedIpv4(address: string): string[] {
  const g = ipv6Groups(address)
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0)
  if (zeros(0, 6) || (zeros(0, 5) && g[5] === 0xffff) || (zeros(0, 4) && g[4] === 0xffff && g[5] === 0)) {
    return [dotted(g[6]!, g[7]!)]
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return [dotted(g[6]!, g[7]!)]
  if (g[0] === 0x2002) return [dotted(g[1]!, g[2]!)]
  if (g[0] === 0x2001 && g[1] === 0) return [dotted(g[2]!, g[3]!), dotted(g[6]! ^ 0xffff, g[7]! ^ 0xffff)]
  return []
}

/** The host of a URL as an address when it is one (brackets of IPv6 removed). */
function literalAddress(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  return isIP(host) ? host : undefined
}

/** Refuses a URL whose host is written as a private address (names are checked when they are resolved). */
export function checkLiteralHost(url: string): void {
  const address = literalAddress(new URL(url))
  if (address !== undefined && isPrivateAddress(address)) throw new PrivateAddressError(address, address)
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * A resolver for the connection itself: the address checked is the one connected to, so a name
 * that resolves to a public address when checked and to a private one a moment later (DNS
 * rebinding) gets nowhere.
 */
function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true } as LookupAllOptions, (err, addresses) => {
    if (err) return callback(err, [])
    const refused = addresses.find((a) => isPrivateAddress(a.address))
    if (refused) return callback(new PrivateAddressError(hostname, refused.address), [])
    if (options.all) return callback(null, addresses)
    const first = addresses[0]
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), [])
    callback(null, first.address, first.family)
  })
}

/** The connection pool of webhook requests: public addresses only, unless the operator allows private ones. */
export function webhookAgent(allowPrivate: boolean): Agent {
  return new Agent(allowPrivate ? {} : { connect: { lookup: publicOnlyLookup } })
}
