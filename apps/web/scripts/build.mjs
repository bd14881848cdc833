// Builds the console into dist/ unless dist/ was already built from the same sources: `npm start`
// runs this at every start, and a start should not wait for a build it does not need. The
// stamp is a hash of what the build reads (the sources, the page, the build's configuration
// and the lock file, which fixes every dependency's version).
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const webDir = fileURLToPath(new URL('..', import.meta.url))
const rootDir = path.join(webDir, '..', '..')
const distDir = path.join(webDir, 'dist')
const stampFile = path.join(distDir, '.sources-hash')

/** Every file under `dir`, sorted, so that the hash does not depend on the order the disk lists them. */
function filesUnder(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const file = path.join(dir, name)
      return statSync(file).isDirectory() ? filesUnder(file) : [file]
    })
}

function sourcesHash() {
  const hash = createHash('sha256')
  const inputs = [
    ...filesUnder(path.join(webDir, 'src')).filter((file) => !/\.test\.tsx?$/.test(file)),
    path.join(webDir, 'index.html'),
    path.join(webDir, 'vite.config.ts'),
    path.join(webDir, 'package.json'),
    path.join(rootDir, 'package-lock.json'),
  ]
  for (const file of inputs) {
    if (!existsSync(file)) continue
    hash.update(path.relative(webDir, file)).update('\0').update(readFileSync(file)).update('\0')
  }
  return hash.digest('hex')
}

const wanted = sourcesHash()
const force = process.argv.includes('--force')
if (!force && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === wanted && existsSync(path.join(distDir, 'index.html'))) {
  process.exit(0)
}

// The production build of React and the libraries, whatever NODE_ENV the caller runs under (a test runner sets "test").
// eslint-disable-next-line no-restricted-properties
process.env.NODE_ENV = 'production'
const { build } = await import('vite')
await build({ configFile: path.join(webDir, 'vite.config.ts'), logLevel: 'warn' })
writeFileSync(stampFile, wanted)
