// A worker thread does not inherit the main thread's TypeScript loader: register it here, then
// run the thread's module. The parser is loaded first, without the loader: through it, its
// megabyte of JavaScript takes seconds to load instead of a fraction of one, and the thread's
// module then finds it loaded.
import '@posthog/hogql-parser'
import { workerData } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

register()
await import(workerData.entry)
