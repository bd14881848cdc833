import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { configurationDoc } from './docs'
import { configSchema } from './index'

const committed = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8')

describe('docs/configuration.md', () => {
  it('is what packages/config’s schema generates', () => {
    expect(committed, 'docs/configuration.md differs from packages/config’s schema: run `npm run docs:config` and commit the result').toBe(
      configurationDoc(),
    )
  })

  it('names every variable the service reads, with its meaning', () => {
    for (const variable of Object.keys(configSchema.shape)) expect(committed).toMatch(new RegExp(`^\\| .*\`${variable}\``, 'm'))
  })
})
