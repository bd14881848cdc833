import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { waitFor, type TestAccount } from '@burrow/testing'
import { chromium, type Browser, type Request } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestService, type TestService } from './service'

/**
 * posthog-js in a real headless Chromium (Debian's, which .ci/run installs), on a page served
 * from another origin than the service, as a customer's site would load it.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const posthogJs = readFileSync(createRequire(import.meta.url).resolve('posthog-js/dist/array.full.js'), 'utf8')

let service: TestService
let account: TestAccount
useTestService((s, a) => {
  service = s
  account = a
})

let site: Server
let siteUrl: string
let browser: Browser

/**
 * The customer's page: loads posthog-js (bundled with the site, or from the service as PostHog's
 * HTML snippet does) and initialises it with the options in the query string.
 */
function page(token: string, apiHost: string, options: Record<string, unknown>, scriptFrom: ScriptFrom): string {
  const src = scriptFrom === 'service' ? `${apiHost}/static/array.js` : '/posthog.js'
  return `<!doctype html><html><head><title>shop</title><script src="${src}"></script></head><body>
<script>
  posthog.init(${JSON.stringify(token)}, Object.assign({
    api_host: ${JSON.stringify(apiHost)},
    opt_out_useragent_filter: true,
    autocapture: false,
    disable_session_recording: true,
    persistence: 'memory',
    request_batching: false,
  }, ${JSON.stringify(options)}))
  posthog.capture('browser event', { from: 'page' })
  posthog.onFeatureFlags(function () {
    if (window.__flags) return
    window.__flags = { on: posthog.isFeatureEnabled('browser-on'), off: posthog.isFeatureEnabled('browser-off') }
    posthog.capture('after flags')
  })
  posthog.getEarlyAccessFeatures(function (features) {
    window.__earlyAccess = features
  }, true)
</script></body></html>`
}

beforeAll(async () => {
  site = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site')
    if (url.pathname === '/posthog.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(posthogJs)
      return
    }
    const options = JSON.parse(url.searchParams.get('options') ?? '{}') as Record<string, unknown>
    const scriptFrom = url.searchParams.get('script') === 'service' ? 'service' : 'site'
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(account.projectToken, service.baseUrl, options, scriptFrom))
  })
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  // localhost and 127.0.0.1 on different ports: another origin than the service.
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  for (const [key, rollout] of [
    ['browser-on', 100],
    ['browser-off', 0],
  ] as const) {
    const res = await service.api(account, `/api/projects/${account.projectId}/feature_flags/`, {
      method: 'POST',
      body: JSON.stringify({ key, filters: { groups: [{ rollout_percentage: rollout }] } }),
    })
    expect(res.status).toBe(201)
  }
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => site?.close(resolve))
})

type ScriptFrom = 'site' | 'service'

/** Opens the page, waits for its flags, leaves it; answers the distinct id and the requests sent to the service. */
async function visit(
  options: Record<string, unknown>,
  scriptFrom: ScriptFrom = 'site',
  stayMs = 0,
): Promise<{ distinctId: string; flags: Record<string, boolean>; earlyAccess: unknown; sent: Request[] }> {
  const context = await browser.newContext()
  const tab = await context.newPage()
  const sent: Request[] = []
  tab.on('request', (r) => {
    if (r.url().startsWith(service.baseUrl)) sent.push(r)
  })
  await tab.goto(`${siteUrl}/?script=${scriptFrom}&options=${encodeURIComponent(JSON.stringify(options))}`)
  const flags = (await (
    await tab.waitForFunction(() => (window as unknown as { __flags?: unknown }).__flags, undefined, { timeout: 15_000 })
  ).jsonValue()) as Record<string, boolean>
  const earlyAccess = await (
    await tab.waitForFunction(() => (window as unknown as { __earlyAccess?: unknown }).__earlyAccess, undefined, { timeout: 15_000 })
  ).jsonValue()
  const distinctId = await tab.evaluate(() => (window as unknown as { posthog: { get_distinct_id(): string } }).posthog.get_distinct_id())
  if (stayMs > 0) await tab.waitForTimeout(stayMs)
  // Leaving the page sends $pageleave as a beacon.
  await tab.goto('about:blank')
  await context.close()
  return { distinctId, flags, earlyAccess, sent }
}

/** The bodies of the capture requests among those sent to the service. */
function captureBodies(sent: Request[]): Buffer[] {
  return sent
    .filter(
      (r) => r.method() === 'POST' && /\/(e|i\/v0\/e|batch|capture)\/?(\?|$)/.test(new URL(r.url()).pathname + new URL(r.url()).search),
    )
    .flatMap((r) => r.postDataBuffer() ?? [])
}

async function eventNames(distinctId: string, expected: string[]): Promise<string[]> {
  return waitFor(
    async () => {
      const res = await service.api(account, `/api/projects/${account.projectId}/events/?distinct_id=${encodeURIComponent(distinctId)}`)
      const names = ((await res.json()).results as Array<{ event: string }>).map((e) => e.event)
      return expected.every((e) => names.includes(e)) ? names : undefined
    },
    { what: `${expected.join(', ')} of ${distinctId}`, timeoutMs: 20_000, intervalMs: 200 },
  )
}

describe('posthog-js in Chromium, on a page of another origin', () => {
  it('configures itself from the service, answers flags from it, and its gzip events and the one sent on unload land', async () => {
    const { distinctId, flags, sent } = await visit({})
    expect(flags).toEqual({ on: true, off: false })
    const names = await eventNames(distinctId, ['$pageview', 'browser event', '$pageleave'])
    expect(names).toEqual(expect.arrayContaining(['$pageview', 'browser event', '$pageleave']))
    // posthog-js 1.449 gzips its batches without a hint in the URL (the service recognises the
    // bytes), and sends $pageleave while the page unloads with a keepalive request.
    const bodies = captureBodies(sent)
    expect(bodies.length).toBeGreaterThan(0)
    expect(bodies.some((b) => b[0] === 0x1f && b[1] === 0x8b)).toBe(true)
  }, 60_000)

  it('loads from the service as the HTML snippet does, and captures, answers flags and lists no early access features', async () => {
    const { distinctId, flags, earlyAccess, sent } = await visit({}, 'service')
    expect(sent.some((r) => new URL(r.url()).pathname === '/static/array.js')).toBe(true)
    expect(flags).toEqual({ on: true, off: false })
    expect(earlyAccess).toEqual([])
    await eventNames(distinctId, ['$pageview', 'browser event', '$pageleave'])
  }, 60_000)

  it('lands its events sent as plain JSON when compression is off', async () => {
    const { distinctId, sent } = await visit({ disable_compression: true })
    await eventNames(distinctId, ['$pageview', 'browser event', '$pageleave'])
    const bodies = captureBodies(sent)
    expect(bodies.length).toBeGreaterThan(0)
    for (const body of bodies) expect(JSON.parse(body.toString('utf8'))).toEqual(expect.anything())
  }, 60_000)

  it('trusts the flags for feature_flag_cache_ttl_ms: answers them, tags events with them and reports the evaluation, without asking again', async () => {
    const { distinctId, flags, sent } = await visit({ feature_flag_cache_ttl_ms: 60_000 }, 'site', 3_000)
    expect(flags).toEqual({ on: true, off: false })
    const flagRequests = sent.filter((r) => new URL(r.url()).pathname.startsWith('/flags'))
    expect(flagRequests.length).toBeGreaterThan(0)
    expect(flagRequests.length).toBeLessThanOrEqual(2)
    const events = await waitFor(
      async () => {
        const res = await service.api(account, `/api/projects/${account.projectId}/events/?distinct_id=${encodeURIComponent(distinctId)}`)
        const results = (await res.json()).results as Array<{ event: string; properties: Record<string, unknown> }>
        const names = results.map((e) => e.event)
        return names.includes('after flags') && names.includes('$feature_flag_called') ? results : undefined
      },
      { what: `the events of ${distinctId}`, timeoutMs: 20_000, intervalMs: 200 },
    )
    const after = events.find((e) => e.event === 'after flags')!
    expect(after.properties).toMatchObject({ '$feature/browser-on': true, '$feature/browser-off': false })
    const called = events.filter((e) => e.event === '$feature_flag_called')
    expect(called.length).toBeGreaterThan(0)
    for (const event of called) {
      expect(event.properties.$feature_flag_request_id).toMatch(/^[0-9a-f-]{36}$/)
      expect(event.properties.$feature_flag_evaluated_at).toEqual(expect.any(Number))
    }
  }, 60_000)
})
