// The console's size budget, checked by `npm test`: the JavaScript a first visit loads before any
// page's own chunk (the entry and the chunks its page preloads), gzipped, stays under 250 KB.
// Builds first when the sources changed since the last build.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

export const BUDGET_BYTES = 250 * 1024

const webDir = fileURLToPath(new URL('..', import.meta.url))
const distDir = path.join(webDir, 'dist')

execFileSync(process.execPath, [path.join(webDir, 'scripts', 'build.mjs')], { stdio: 'inherit' })

const html = readFileSync(path.join(distDir, 'index.html'), 'utf8')
const scripts = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/([^"]+\.js)"/g)].map((m) => m[1])
if (scripts.length === 0) {
  console.error('size check: the built page names no script')
  process.exit(1)
}
let total = 0
for (const file of scripts) {
  const bytes = gzipSync(readFileSync(path.join(distDir, file)), { level: 9 }).length
  total += bytes
  console.log(`${file}: ${(bytes / 1024).toFixed(1)} KB gzipped`)
}
const verdict = `first load: ${(total / 1024).toFixed(1)} KB of JavaScript gzipped, budget ${BUDGET_BYTES / 1024} KB`
if (total > BUDGET_BYTES) {
  console.error(`size check failed: ${verdict}`)
  process.exit(1)
}
console.log(`size check passed: ${verdict}`)
