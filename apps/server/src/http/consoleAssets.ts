import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { problems } from '@burrow/contracts'
import type { IncomingRequest, OutgoingResponse } from './uwsServer'

/**
 * The console's built files (apps/web/dist), served at `/`: its page for every console URL,
 * its hashed scripts and styles under `/assets/`. The public SDK paths and the APIs are matched
 * before these, so nothing the SDKs call can be shadowed.
 */
export interface ConsoleAssets {
  /** The answer for a console path, or undefined when the path is not one. */
  answer(req: Pick<IncomingRequest, 'method' | 'path' | 'headers'>): OutgoingResponse | undefined
}

interface Asset {
  contentType: string
  plain: Buffer
  gzipped: Buffer | undefined
}

/**
 * What the console's page may load and reach: its own origin only. No inline script or style
 * (the build emits none), no framing (clickjacking of the sign-in form), no plugin content.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CONSOLE_CSP,
  // The page names its current scripts: asked for again at each visit, so an upgrade is seen at once.
  'cache-control': 'no-cache',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
}

/** The console's own URLs, which its router draws (an invite's link among them): the rest of the namespace stays the service's. */
const PAGE_PATH = /^\/(?:|login\/?|signup\/[^/]+\/?|project(?:\/.*)?)$/

const ASSET_PATH = /^\/assets\/([A-Za-z0-9][A-Za-z0-9._-]*)$/

/** The built console's directory: `@burrow/web`'s dist/, wherever the workspace is installed. */
export function consoleDistDir(): string {
  const require = createRequire(import.meta.url)
  return path.join(path.dirname(require.resolve('@burrow/web/package.json')), 'dist')
}

const notFound: OutgoingResponse = {
  status: 404,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(problems.notFound().body),
}

/** Worth compressing: text. Already compressed formats go as they are. */
const compressible = (contentType: string) => /^(text\/|application\/json|image\/svg)/.test(contentType)

function load(file: string): Asset {
  const plain = readFileSync(file)
  const contentType = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream'
  return { contentType, plain, gzipped: compressible(contentType) && plain.length > 512 ? gzipSync(plain, { level: 9 }) : undefined }
}

function withEncoding(asset: Asset, headers: Record<string, string>, acceptEncoding: string | undefined): OutgoingResponse {
  const gzip = asset.gzipped !== undefined && /\bgzip\b/.test(acceptEncoding ?? '')
  return {
    status: 200,
    headers: { ...headers, vary: 'Accept-Encoding', ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
    body: gzip ? asset.gzipped! : asset.plain,
  }
}

/**
 * The console's files, read and compressed once at start (a few hundred KB). Undefined when the
 * console is not built: the service runs without it, and says so.
 */
export function consoleAssets(dir: string = consoleDistDir()): ConsoleAssets | undefined {
  const indexFile = path.join(dir, 'index.html')
  if (!existsSync(indexFile)) return undefined
  const page = load(indexFile)
  page.contentType = PAGE_HEADERS['content-type']
  const assets = new Map<string, Asset>()
  const assetsDir = path.join(dir, 'assets')
  if (existsSync(assetsDir)) for (const name of readdirSync(assetsDir)) assets.set(name, load(path.join(assetsDir, name)))

  return {
    answer(req) {
      const pagePath = PAGE_PATH.test(req.path)
      const assetName = pagePath ? undefined : ASSET_PATH.exec(req.path)?.[1]
      if (!pagePath && assetName === undefined && !req.path.startsWith('/assets/')) return undefined
      if (req.method !== 'GET') {
        const problem = problems.methodNotAllowed(req.method)
        return {
          status: problem.status,
          headers: { 'content-type': 'application/json', allow: 'GET, HEAD' },
          body: JSON.stringify(problem.body),
        }
      }
      if (pagePath) return withEncoding(page, PAGE_HEADERS, req.headers['accept-encoding'])
      const asset = assetName === undefined ? undefined : assets.get(assetName)
      if (!asset) return notFound
      // Their names carry a hash of their content: a name is never reused for other bytes.
      return withEncoding(
        asset,
        { 'content-type': asset.contentType, 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' },
        req.headers['accept-encoding'],
      )
    },
  }
}
