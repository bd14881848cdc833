import { readdirSync, readFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { promisify } from 'node:util'
import { gzip } from 'node:zlib'
import { problems } from '@burrow/contracts'
import type { IncomingRequest, OutgoingResponse } from './uwsServer'

const gzipAsync = promisify(gzip)

/**
 * posthog-js's browser bundles, served where PostHog serves them: the HTML snippet loads
 * `<api_host>/static/array.js`, and the SDK loads its extensions (`recorder`, `surveys`,
 * `toolbar`, ...) from `/static/<name>.js?v=<version>`, or from `/static/<version>/<name>.js`
 * with `strict_script_versioning`. The bundles are those of the posthog-js release this
 * service is built with; a request for another release's is 404, which the SDK falls back from.
 */
export interface ClientBundles {
  /** The answer for a bundle path, or undefined when the path is not one. */
  answer(req: Pick<IncomingRequest, 'path' | 'headers'>): Promise<OutgoingResponse> | undefined
}

const BUNDLE_PATH = /^\/static\/(?:([^/]+)\/)?([A-Za-z0-9][A-Za-z0-9._-]*\.js)$/

interface Bundle {
  plain: Buffer
  gzipped: Buffer
}

export function clientBundles(): ClientBundles {
  const require = createRequire(import.meta.url)
  const dist = path.dirname(require.resolve('posthog-js/dist/array.js'))
  const version = (JSON.parse(readFileSync(path.join(dist, '..', 'package.json'), 'utf8')) as { version: string }).version
  const names = new Set(readdirSync(dist).filter((name) => name.endsWith('.js')))
  // Read and compressed on first use, once: the directory holds about 40 bundles, most never asked for.
  const loaded = new Map<string, Promise<Bundle>>()
  const load = (name: string) => {
    let bundle = loaded.get(name)
    if (!bundle) {
      bundle = readFile(path.join(dist, name)).then(async (plain) => ({ plain, gzipped: await gzipAsync(plain) }))
      bundle.catch(() => loaded.delete(name))
      loaded.set(name, bundle)
    }
    return bundle
  }

  return {
    answer(req) {
      const match = BUNDLE_PATH.exec(req.path)
      if (!match) return undefined
      const [, wantedVersion, name] = match
      if (!names.has(name!) || (wantedVersion !== undefined && wantedVersion !== version)) return Promise.resolve(notFound)
      const gzipOk = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')
      return load(name!).then((bundle) => ({
        status: 200,
        headers: {
          'content-type': 'application/javascript; charset=utf-8',
          // Any site may load them, as from PostHog's asset host.
          'access-control-allow-origin': '*',
          // A versioned path never changes; an unversioned one changes when the service is upgraded.
          'cache-control': wantedVersion ? 'public, max-age=31536000, immutable' : 'public, max-age=3600',
          vary: 'Accept-Encoding',
          ...(gzipOk ? { 'content-encoding': 'gzip' } : {}),
        },
        body: gzipOk ? bundle.gzipped : bundle.plain,
      }))
    },
  }
}

const notFound: OutgoingResponse = {
  status: 404,
  headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' },
  body: JSON.stringify(problems.notFound().body),
}
