import type { Config } from '@burrow/config'
import { accounts, consoleAuth } from '@burrow/core'
import type { PostgresHandle } from '@burrow/postgres'
import type { Logger } from '../logger'

/**
 * On an empty database, the first account; on a database where no user has a password (new, or
 * from before the console), the first user's console password. A generated secret is printed
 * once on stderr, never into the JSON log stream, which log shippers keep.
 */
export async function bootstrapFirstAccount(config: Config, sql: PostgresHandle['sql'], logger: Logger): Promise<void> {
  const first = await accounts.bootstrapFirstAccount(sql, {
    email: config.BOOTSTRAP_EMAIL,
    organizationName: config.BOOTSTRAP_ORGANIZATION,
    personalApiKey: config.BOOTSTRAP_PERSONAL_API_KEY,
  })
  if (first) {
    logger.info(
      { email: first.user.email, project_id: first.project.id, project_api_key: first.project.api_token },
      config.BOOTSTRAP_PERSONAL_API_KEY
        ? 'created the first account, with BOOTSTRAP_PERSONAL_API_KEY as its personal API key'
        : 'created the first account: its personal API key is printed on stderr, once',
    )
    if (!config.BOOTSTRAP_PERSONAL_API_KEY) {
      process.stderr.write(
        `\nThe first account (${first.user.email}) has this personal API key. Keep it: it is not shown again.\n\n    ${first.personalApiKey}\n\n`,
      )
    }
  }
  const firstPassword = await consoleAuth.ensureFirstPassword(sql, config.BOOTSTRAP_EMAIL, config.BOOTSTRAP_PASSWORD)
  if (firstPassword) {
    logger.info(
      { email: firstPassword.email },
      firstPassword.generated
        ? 'set the console password of the first user: it is printed on stderr, once'
        : 'set the console password of the first user to BOOTSTRAP_PASSWORD',
    )
    if (firstPassword.generated)
      process.stderr.write(
        `\nSign in to the console at / as ${firstPassword.email} with this password (change it with npm run cli -- set-password). It is not shown again.\n\n    ${firstPassword.password}\n\n`,
      )
  }
}
