// Builds the server into dist/: one ES module per process entry (the service, the CLI, a capture
// thread, a HogQL parser thread), so that production runs plain JavaScript instead of compiling
// TypeScript in every thread at start. The workspace's own packages (@burrow/*, TypeScript
// sources) are bundled; every other package stays in node_modules, where native addons
// (uWebSockets.js, chDB, embedded PostgreSQL) and the files packages read at run time
// (posthog-js's bundles) live.
import { build } from 'esbuild'
import { execFileSync } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const serverDir = fileURLToPath(new URL('..', import.meta.url))
const outdir = process.argv[2] ?? `${serverDir}/dist`

/**
 * The commit the build is made from, which /_readyz and burrow_build_info report: BURROW_COMMIT
 * when given (an image built from a context without .git), else git's HEAD, else "unknown" (a
 * copy of the sources without git still builds).
 */
function commit() {
  // A build-time knob (the Dockerfile's build argument), not the service's configuration.
  // eslint-disable-next-line no-restricted-properties
  const given = process.env.BURROW_COMMIT
  if (given) return given
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: serverDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return 'unknown'
  }
}

/** @type {import('esbuild').Plugin} */
const thirdPartyExternal = {
  name: 'third-party-external',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@burrow/') ? undefined : { path: args.path, external: true },
    )
  },
}

await rm(outdir, { recursive: true, force: true })
await build({
  absWorkingDir: serverDir,
  entryPoints: {
    main: 'src/main.ts',
    cli: 'src/admin/cli.ts',
    captureThread: 'src/captureThreads/thread.ts',
    // The HogQL parser's thread, which @burrow/query's pool finds beside its own chunk.
    hogqlParserThread: '../../packages/query/src/hogql/parserThread.ts',
  },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  define: { __BURROW_COMMIT__: JSON.stringify(commit()) },
  plugins: [thirdPartyExternal],
})
