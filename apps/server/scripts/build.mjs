// Builds the server into dist/: one ES module per process entry (the service, the CLI, a capture
// thread), so that production runs plain JavaScript instead of compiling TypeScript in every
// thread at start. The workspace's own packages (@burrow/*, TypeScript sources) are bundled;
// every other package stays in node_modules, where native addons (uWebSockets.js, chDB,
// embedded PostgreSQL) and the files packages read at run time (posthog-js's bundles) live.
import { build } from 'esbuild'
import { rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const serverDir = fileURLToPath(new URL('..', import.meta.url))
const outdir = process.argv[2] ?? `${serverDir}/dist`

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
    cli: 'src/cli.ts',
    captureThread: 'src/captureThreads/thread.ts',
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
  plugins: [thirdPartyExternal],
})
