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
  ['64:ff9b::', 96], // NAT64 of any IPv4 address
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

/** Whether an IP address (v4, v6, or v4 mapped into v6) lies in a private or reserved range. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return false
  const mapped = family === 6 ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address) : null
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4')
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6')
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
