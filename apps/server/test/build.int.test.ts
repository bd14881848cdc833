import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { SERVER_DIR } from './serviceProcess'

const run = promisify(execFile)
const ROOT = path.resolve(SERVER_DIR, '..', '..')
const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** The built CLI's `version` after a build with this environment. */
async function builtVersion(env: NodeJS.ProcessEnv): Promise<string> {
  const dir = mkdtempSync(path.join(SERVER_DIR, '.build-'))
  dirs.push(dir)
  const { BURROW_COMMIT: _commit, ...inherited } = process.env
  await run(process.execPath, ['scripts/build.mjs', dir], { cwd: SERVER_DIR, env: { ...inherited, ...env } })
  return (await run(process.execPath, [path.join(dir, 'cli.mjs'), 'version'], { cwd: SERVER_DIR })).stdout.trim()
}

/** What dist/ holds: each file's name and modification time (empty when there is none). */
function distState(): string[] {
  const dist = path.join(SERVER_DIR, 'dist')
  if (!existsSync(dist)) return []
  return readdirSync(dist).map((name) => `${name} ${statSync(path.join(dist, name)).mtimeMs}`)
}

describe('the build', () => {
  it('embeds the commit it was built from: BURROW_COMMIT when given, else git HEAD, else "unknown" without git', async () => {
    const { version } = JSON.parse(readFileSync(path.join(SERVER_DIR, 'package.json'), 'utf8')) as { version: string }
    expect(await builtVersion({ BURROW_COMMIT: 'c0ffee1' })).toBe(`${version} c0ffee1`)
    // A copy of the sources without .git (a Docker build context, an archive) still builds.
    expect(await builtVersion({ GIT_DIR: path.join(SERVER_DIR, 'no-such-git-dir'), GIT_CEILING_DIRECTORIES: ROOT })).toBe(
      `${version} unknown`,
    )
    const head = await run('git', ['rev-parse', 'HEAD'], { cwd: ROOT }).then(
      ({ stdout }) => stdout.trim(),
      () => undefined,
    )
    if (head) expect(await builtVersion({})).toBe(`${version} ${head}`)
  }, 120_000)

  it('`npm run cli` leaves dist/, which a running service loads its code from, as it was', async () => {
    const before = distState()
    const { stdout } = await run('npm', ['run', '--silent', 'cli', '--', 'version'], { cwd: ROOT })
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+\S* \S+$/)
    expect(distState()).toEqual(before)
    expect(readdirSync(SERVER_DIR).filter((name) => name.startsWith('.build-cli-'))).toEqual([])
  }, 60_000)
})
