// Writes docs/configuration.md from packages/config's schema: `npm run docs:config`. A unit test
// (packages/config/src/docs.test.ts) fails while the committed file differs from what this writes.
import { writeFileSync } from 'node:fs'
import { configurationDoc } from '@burrow/config/docs'

const target = new URL('../docs/configuration.md', import.meta.url)
writeFileSync(target, configurationDoc())
console.log(`wrote ${target.pathname}`)
