// `npm run cli`: builds the CLI into a directory of its own and runs it there. dist/ belongs to
// a service that may be running from it (it loads its capture threads' module and code chunks
// after it starts), and rebuilding it under that service would break it; two CLIs at once (a
// long backup and a `dlq list`) must not rebuild each other's either. The directory is removed
// when the CLI ends.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const serverDir = fileURLToPath(new URL('..', import.meta.url))
// Inside the server's folder, so that the built files find the packages in node_modules.
const dir = mkdtempSync(path.join(serverDir, '.build-cli-'))
const remove = () => rmSync(dir, { recursive: true, force: true })
try {
  execFileSync(process.execPath, [path.join(serverDir, 'scripts/build.mjs'), dir], { stdio: 'inherit' })
} catch {
  remove()
  process.exit(1)
}
const cli = spawn(process.execPath, [path.join(dir, 'cli.mjs'), ...process.argv.slice(2)], { stdio: 'inherit' })
// Ctrl-C reaches the CLI (the same process group) by itself; a SIGTERM sent to this process is passed on.
process.on('SIGINT', () => {})
process.on('SIGTERM', () => cli.kill('SIGTERM'))
cli.on('exit', (code, signal) => {
  remove()
  process.exit(code ?? (signal ? 1 : 0))
})
