import { parseArgs } from 'node:util'
import { loadConfig } from '@burrow/config'
import { accounts, ApiProblem } from '@burrow/core'
import { connectPostgres, migratePostgres } from '@burrow/postgres'

const USAGE = `usage: npm run cli -- <command>

commands:
  create-user --email E --organization NAME [--json]
      creates a user who owns a new organization with a first project, and prints the
      user's personal API key (shown once)`

async function createUser(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { email: { type: 'string' }, organization: { type: 'string' }, json: { type: 'boolean', default: false } },
  })
  if (!values.email || !values.organization) {
    console.error(USAGE)
    return 2
  }
  const config = loadConfig()
  // In embedded mode this finds the running service's PostgreSQL through DATA_DIR.
  const pg = await connectPostgres({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, maxConnections: 2 })
  try {
    await migratePostgres(pg.sql)
    const account = await accounts.createAccount(pg.sql, { email: values.email, organizationName: values.organization })
    const result = {
      personal_api_key: account.personalApiKey,
      user_id: account.user.id,
      organization_id: account.organizationId,
      project_id: account.project.id,
      project_api_key: account.project.api_token,
    }
    console.log(values.json ? JSON.stringify(result) : Object.entries(result).map(([k, v]) => `${k}: ${v}`).join('\n'))
    return 0
  } catch (err) {
    if (err instanceof ApiProblem) {
      console.error(err.message)
      return 1
    }
    throw err
  } finally {
    await pg.close()
  }
}

const [command, ...rest] = process.argv.slice(2)
let code: number
switch (command) {
  case 'create-user':
    code = await createUser(rest)
    break
  default:
    console.error(USAGE)
    code = command ? 2 : 0
}
process.exit(code)
