// A worker thread does not inherit the main thread's TypeScript loader: register it here, then
// run the thread's module.
import { workerData } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

register()
await import(workerData.entry)
