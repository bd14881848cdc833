import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { dataDirectoryProblem, permissionProblem, type PathStatus, type PosixIdentity } from './embedded'

const postgresUser: PosixIdentity = { uid: 101, gid: 104 }
const ROOT = 0

/** A file system of directories (and files) with the given owners and modes. */
function fileSystem(entries: Record<string, Partial<PathStatus> & { mode: number }>): (p: string) => PathStatus | undefined {
  return (p) => {
    const entry = entries[p]
    return entry && { uid: ROOT, gid: ROOT, ...entry }
  }
}

const systemDirs = { '/': { mode: 0o755 }, '/tmp': { mode: 0o1777 }, '/var': { mode: 0o755 }, '/var/lib': { mode: 0o755 } }

describe('the embedded PostgreSQL data directory check', () => {
  it('names the directory the postgres user may not enter and the chmod that lets it through', () => {
    const problem = permissionProblem(
      '/tmp/tmp.AbC123/postgres',
      postgresUser,
      fileSystem({ ...systemDirs, '/tmp/tmp.AbC123': { mode: 0o700 } }),
    )
    expect(problem).toBe(
      'The embedded PostgreSQL runs as the OS user "postgres" (uid 101), which cannot reach its data directory /tmp/tmp.AbC123/postgres: ' +
        'it may not enter /tmp/tmp.AbC123 (owner uid 0, mode 0700). ' +
        'Let it through with `chmod o+x /tmp/tmp.AbC123`, or choose a DATA_DIR that user can reach, such as /var/lib/burrow, ' +
        'or set DATABASE_URL to a PostgreSQL server.',
    )
  })

  it('lists every directory on the way that needs opening in one command', () => {
    const problem = permissionProblem(
      '/root/burrow/.data/postgres',
      postgresUser,
      fileSystem({
        '/': { mode: 0o755 },
        '/root': { mode: 0o700 },
        '/root/burrow': { mode: 0o750 },
        '/root/burrow/.data': { mode: 0o755 },
      }),
    )
    expect(problem).toContain('it may not enter /root (owner uid 0, mode 0700)')
    expect(problem).toContain('`chmod o+x /root /root/burrow`')
  })

  it("reads the owner's bits for a directory of the user and the group's for one of its group, as the kernel does", () => {
    const own = permissionProblem(
      '/srv/a/postgres',
      postgresUser,
      fileSystem({ '/': { mode: 0o755 }, '/srv': { mode: 0o755 }, '/srv/a': { uid: 101, mode: 0o611 } }),
    )
    expect(own).toContain('`chmod u+x /srv/a`')
    const group = permissionProblem(
      '/srv/b/postgres',
      postgresUser,
      fileSystem({ '/': { mode: 0o755 }, '/srv': { mode: 0o755 }, '/srv/b': { gid: 104, mode: 0o701 } }),
    )
    expect(group).toContain('`chmod g+x /srv/b`')
    const mixed = permissionProblem(
      '/srv/c/d/postgres',
      postgresUser,
      fileSystem({ '/': { mode: 0o755 }, '/srv': { mode: 0o755 }, '/srv/c': { gid: 104, mode: 0o700 }, '/srv/c/d': { mode: 0o700 } }),
    )
    expect(mixed).toContain('`chmod g+x /srv/c && chmod o+x /srv/c/d`')
  })

  it('accepts a data directory that every directory above lets the user through', () => {
    expect(
      permissionProblem('/var/lib/burrow/postgres', postgresUser, fileSystem({ ...systemDirs, '/var/lib/burrow': { mode: 0o711 } })),
    ).toBeUndefined()
    expect(
      permissionProblem(
        '/srv/burrow/postgres',
        postgresUser,
        fileSystem({ '/': { mode: 0o755 }, '/srv': { mode: 0o755 }, '/srv/burrow': { gid: 104, mode: 0o750 } }),
      ),
    ).toBeUndefined()
  })

  it('judges a postgres user yet to be created by the bits for others, since it will get a group of its own', () => {
    const files = fileSystem({ ...systemDirs, '/var/lib/burrow': { gid: 104, mode: 0o750 } })
    expect(permissionProblem('/var/lib/burrow/postgres', postgresUser, files)).toBeUndefined()
    const problem = permissionProblem('/var/lib/burrow/postgres', undefined, files)
    expect(problem).toContain('runs as the OS user "postgres", which cannot reach')
    expect(problem).toContain('`chmod o+x /var/lib/burrow`')
  })

  it('refuses a data directory initialised by another user, with the chown that hands it over', () => {
    const problem = permissionProblem(
      '/var/lib/burrow/postgres',
      postgresUser,
      fileSystem({
        ...systemDirs,
        '/var/lib/burrow': { mode: 0o755 },
        '/var/lib/burrow/postgres': { uid: 1000, mode: 0o700 },
        '/var/lib/burrow/postgres/PG_VERSION': { uid: 1000, mode: 0o600 },
      }),
    )
    expect(problem).toBe(
      'The embedded PostgreSQL runs as the OS user "postgres" (uid 101), but its data directory /var/lib/burrow/postgres belongs to uid 1000 (mode 0700). ' +
        'Give it to that user with `chown -R postgres:postgres /var/lib/burrow/postgres && chmod 700 /var/lib/burrow/postgres`, ' +
        'or choose a DATA_DIR that user can reach, such as /var/lib/burrow, or set DATABASE_URL to a PostgreSQL server.',
    )
  })

  it("accepts the user's own initialised data directory, and one not initialised yet whoever owns it (initdb's set-up hands it over)", () => {
    const dirs = { ...systemDirs, '/var/lib/burrow': { mode: 0o755 } }
    const initialised = fileSystem({
      ...dirs,
      '/var/lib/burrow/postgres': { uid: 101, gid: 104, mode: 0o700 },
      '/var/lib/burrow/postgres/PG_VERSION': { uid: 101, mode: 0o600 },
    })
    expect(permissionProblem('/var/lib/burrow/postgres', postgresUser, initialised)).toBeUndefined()
    const fresh = fileSystem({ ...dirs, '/var/lib/burrow/postgres': { mode: 0o755 } })
    expect(permissionProblem('/var/lib/burrow/postgres', postgresUser, fresh)).toBeUndefined()
  })

  it('quotes a directory whose name the shell would split', () => {
    const problem = permissionProblem(
      "/srv/my data's/postgres",
      postgresUser,
      fileSystem({ '/': { mode: 0o755 }, '/srv': { mode: 0o755 }, "/srv/my data's": { mode: 0o700 } }),
    )
    expect(problem).toContain("`chmod o+x '/srv/my data'\\''s'`")
  })
})

describe('the data directory check on this machine', () => {
  const made: string[] = []
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true })
  })
  const isRoot = process.getuid?.() === 0

  it(
    isRoot
      ? 'refuses a DATA_DIR made by mktemp (mode 700) before initdb, naming it and the chmod'
      : 'accepts a DATA_DIR of mode 700 when not root, since the server then runs as this user',
    async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'burrow-pg-perm-'))
      made.push(dataDir)
      chmodSync(dataDir, 0o700)
      const problem = await dataDirectoryProblem(path.join(dataDir, 'postgres'))
      if (isRoot) {
        expect(problem).toMatch(/^The embedded PostgreSQL runs as the OS user "postgres"/)
        expect(problem).toContain(`cannot reach its data directory ${path.join(dataDir, 'postgres')}`)
        expect(problem).toContain(`\`chmod o+x ${dataDir}\``)
        expect(problem).toContain('/var/lib/burrow')
      } else {
        expect(problem).toBeUndefined()
      }
    },
  )

  it('accepts a DATA_DIR that others may enter', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'burrow-pg-perm-'))
    made.push(dataDir)
    chmodSync(dataDir, 0o711)
    expect(await dataDirectoryProblem(path.join(dataDir, 'postgres'))).toBeUndefined()
  })

  it(isRoot ? 'follows a symbolic link to the directories it leads through' : 'does not mind a symbolic link when not root', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'burrow-pg-perm-'))
    made.push(base)
    chmodSync(base, 0o755)
    const hidden = path.join(base, 'hidden')
    mkdirSync(path.join(hidden, 'data'), { recursive: true, mode: 0o755 })
    chmodSync(hidden, 0o700)
    symlinkSync(path.join(hidden, 'data'), path.join(base, 'link'))
    const problem = await dataDirectoryProblem(path.join(base, 'link', 'postgres'))
    if (isRoot) expect(problem).toContain(`\`chmod o+x ${hidden}\``)
    else expect(problem).toBeUndefined()
  })
})
