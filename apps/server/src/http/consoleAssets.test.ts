import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { CONSOLE_CSP, consoleAssets } from './consoleAssets'

const dir = mkdtempSync(path.join(tmpdir(), 'console-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const PAGE = '<!doctype html><title>Burrow</title><script type="module" src="/assets/index-abc123.js"></script>'
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))})`
mkdirSync(path.join(dir, 'assets'))
writeFileSync(path.join(dir, 'index.html'), PAGE)
writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), SCRIPT)
const assets = consoleAssets(dir)!

const get = (p: string, headers: Record<string, string> = {}) => assets.answer({ method: 'GET', path: p, headers })

describe("the console's files", () => {
  it('answers every console URL with its page, under a strict Content-Security-Policy and never cached stale', () => {
    for (const p of ['/', '/login', '/signup/0b8a3d2e-4f1c-4a8e-9d3b-2c1f0e9a8b7c', '/project/2/events', '/project/2/settings']) {
      const answer = get(p)!
      expect(answer.status).toBe(200)
      expect(answer.body.toString()).toBe(PAGE)
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(answer.headers['content-security-policy']).toBe(CONSOLE_CSP)
      expect(answer.headers['cache-control']).toBe('no-cache')
      expect(answer.headers['x-frame-options']).toBe('DENY')
    }
    expect(CONSOLE_CSP).toContain("script-src 'self'")
    expect(CONSOLE_CSP).not.toContain('unsafe-inline')
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'")
  })

  it('serves hashed files as immutable for a year, gzipped for a client that takes gzip', () => {
    const plain = get('/assets/index-abc123.js')!
    expect(plain.status).toBe(200)
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(plain.body.toString()).toBe(SCRIPT)
    const gzipped = get('/assets/index-abc123.js', { 'accept-encoding': 'gzip, br' })!
    expect(gzipped.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gzipped.body as Buffer).toString()).toBe(SCRIPT)
    expect(gzipped.body.length).toBeLessThan(SCRIPT.length / 10)
  })

  it('answers 404 with PostHog’s error body for a file it does not have, and 405 to anything but GET', () => {
    for (const p of ['/assets/missing.js', '/assets/../index.html', '/assets/']) {
      const answer = get(p)!
      expect(answer.status).toBe(404)
      expect(JSON.parse(answer.body.toString())).toMatchObject({ type: 'invalid_request', code: 'not_found' })
    }
    const post = assets.answer({ method: 'POST', path: '/login', headers: {} })!
    expect(post.status).toBe(405)
    expect(JSON.parse(post.body.toString())).toMatchObject({ code: 'method_not_allowed' })
  })

  it('leaves every path of the SDKs, the APIs and the service to them', () => {
    for (const p of [
      '/static/array.js',
      '/e/',
      '/i/v0/e/',
      '/capture/',
      '/batch/',
      '/decide/',
      '/flags/',
      '/api/projects/',
      '/api/login/',
      '/trpc/users.me',
      '/_health',
      '/_readyz',
      '/_metrics',
      '/array/phc_x/config.js',
      '/projects',
      '/loginx',
      '/signup/',
      '/signup/a/b',
      '/api/signup/x/',
    ]) {
      expect(get(p), p).toBeUndefined()
    }
  })

  it('is absent where the console is not built, so that the service still starts', () => {
    expect(consoleAssets(path.join(dir, 'nowhere'))).toBeUndefined()
  })
})
