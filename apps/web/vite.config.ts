import { defineConfig } from 'vite'

/**
 * The console's build: one entry, hashed file names under assets/ (served as immutable), no
 * inline script or style, so that the page's Content-Security-Policy can refuse both. During
 * `npm run dev --workspace @burrow/web`, the API calls go to a service on PORT (8000).
 */
const service = `http://127.0.0.1:${process.env.PORT ?? '8000'}`

export default defineConfig({
  root: import.meta.dirname,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    rolldownOptions: {
      onwarn(warning, warn) {
        // React libraries mark their modules "use client" for server components, which a browser bundle has no use for.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE' || warning.code === 'PLUGIN_TIMINGS') return
        warn(warning)
      },
    },
  },
  server: {
    proxy: { '/api': service, '/trpc': service },
  },
})
