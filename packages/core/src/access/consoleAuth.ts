import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { hash, verify } from '@node-rs/argon2'
import type { RateLimit } from '@burrow/cache'
import { problems } from '@burrow/contracts'
import { consoleSessions, users, type Pool, type Sql, type UserRow } from '@burrow/postgres'
import type { Caller } from './access'
import type { KeyGuessGuard } from './keyGuessGuard'

/** How long a session lasts without use; each use moves it on (a console open every day stays signed in). */
export const SESSION_LIFETIME_S = 14 * 24 * 3600

/** Django's default minimum, which PostHog keeps. */
export const MIN_PASSWORD_LENGTH = 8
/** Past this a password is refused before it is hashed: hashing megabytes is work an attacker could ask for. */
const MAX_PASSWORD_LENGTH = 1024

const INVALID_CREDENTIALS = () => problems.validation(null, 'Invalid email or password.', 'invalid_credentials')

/** Refuses a password too short to resist guessing, in Django's words. */
export function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw problems.validation(
      'password',
      `This password is too short. It must contain at least ${MIN_PASSWORD_LENGTH} characters.`,
      'password_too_short',
    )
  if (password.length > MAX_PASSWORD_LENGTH)
    throw problems.validation('password', `Ensure this field has no more than ${MAX_PASSWORD_LENGTH} characters.`)
}

/** argon2id with the library's defaults (OWASP's: 19 MiB, 2 passes), as a PHC string that carries its own parameters. */
export function hashPassword(password: string): Promise<string> {
  return hash(password)
}

/** Sets a user's password (found by email) and ends their sessions, so that a changed password signs every browser out. */
export async function setPassword(sql: Pool, email: string, password: string): Promise<UserRow> {
  checkNewPassword(password)
  const user = await users.findUserByEmail(sql, email)
  if (!user) throw problems.notFound(`No user has the email ${email}.`)
  const digest = await hashPassword(password)
  await sql.begin(async (tx) => {
    await consoleSessions.setPasswordHash(tx, user.id, digest)
    await consoleSessions.deleteSessionsOf(tx, user.id)
  })
  return user
}

/** A password for a first user nobody chose one for: 24 random characters, printed once. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url')
}

/**
 * The bound on password guessing: failed sign-ins count per account (so that guesses spread over
 * many addresses still stop) and per address (the key-guessing guard's count, which slows then
 * refuses an address that keeps guessing). An account past its limit is refused, right password
 * or not, until its window ends.
 */
export interface SignInGuard {
  /** Throws the 429 to answer when the account has failed too often. */
  admit(email: string): Promise<void>
  /** Counts a failure; may wait (a slowed address) or throw the 429. */
  failed(email: string, address: string | undefined): Promise<void>
}

export function signInGuard(accounts: RateLimit, options: { limit: number; windowS: number; addresses?: KeyGuessGuard }): SignInGuard {
  const keyOf = (email: string) => email.trim().toLowerCase()
  return {
    async admit(email) {
      if ((await accounts.count(keyOf(email))) >= options.limit) throw problems.throttled(options.windowS)
    },
    async failed(email, address) {
      await accounts.hit(keyOf(email))
      await options.addresses?.failed('password', address)
    },
  }
}

export interface NewSession {
  /** The cookie's value: stored only as its SHA-256. */
  token: string
  csrfToken: string
  user: UserRow
}

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex')
const newToken = () => randomBytes(32).toString('base64url')

/** A hash to check a password against when the email has none, so that an unknown email takes as long to refuse as a wrong password. */
let decoy: Promise<string> | undefined

/** Checks an email and password and opens a session; the same refusal for an unknown email, a wrong password or an inactive user. */
export async function signIn(
  sql: Sql,
  input: { email: string; password: string; address?: string | undefined },
  guard?: SignInGuard,
): Promise<NewSession> {
  const email = input.email.trim()
  await guard?.admit(email)
  const user = email === '' ? undefined : await users.findUserByEmail(sql, email)
  const stored = user ? await consoleSessions.passwordHashOf(sql, user.id) : undefined
  const password = input.password.slice(0, MAX_PASSWORD_LENGTH + 1)
  let valid = false
  if (stored) valid = await verify(stored, password).catch(() => false)
  else await verify(await (decoy ??= hash(generatePassword())), password).catch(() => false)
  if (!user || !valid || !user.is_active) {
    await guard?.failed(email, input.address)
    throw INVALID_CREDENTIALS()
  }
  return openSession(sql, user)
}

/** A new session of a user whose identity is settled (a right password, an invite just used). */
export async function openSession(sql: Sql, user: UserRow): Promise<NewSession> {
  const token = newToken()
  const csrfToken = newToken()
  await consoleSessions.insertSession(sql, { tokenHash: tokenHash(token), userId: user.id, csrfToken, lifetimeSeconds: SESSION_LIFETIME_S })
  return { token, csrfToken, user }
}

/** The caller of a session's cookie and the session's CSRF token; undefined for an unknown, ended or expired session. */
export async function sessionOf(sql: Sql, token: string): Promise<{ caller: Caller; csrfToken: string } | undefined> {
  if (token.length === 0 || token.length > 100) return undefined
  const found = await consoleSessions.findSessionUser(sql, tokenHash(token), SESSION_LIFETIME_S)
  return found && { caller: found.user, csrfToken: found.csrfToken }
}

/** Ends a session on the server: its cookie, kept or copied, no longer signs anyone in. */
export async function signOut(sql: Sql, token: string): Promise<void> {
  await consoleSessions.deleteSession(sql, tokenHash(token))
}

/** Whether the CSRF token a request sent is its session's, compared in constant time. */
export function csrfMatches(sent: string | undefined, expected: string): boolean {
  if (!sent) return false
  const [a, b] = [Buffer.from(sent), Buffer.from(expected)]
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * At a start where no user has a password yet (a new database, or one from before the console),
 * gives one to the user of `email`, else to the first owner: `password` when given, else a
 * generated one. Undefined when some user has a password already.
 */
export async function ensureFirstPassword(
  sql: Pool,
  email: string,
  password: string | undefined,
): Promise<{ email: string; password: string; generated: boolean } | undefined> {
  if (password !== undefined) checkNewPassword(password)
  // Every later start ends here, before the cost of a hash.
  if (await consoleSessions.anyPassword(sql)) return undefined
  const chosen = password ?? generatePassword()
  const digest = await hashPassword(chosen)
  return sql.begin(async (tx) => {
    // Several servers may start together: the lock lets one choose.
    await tx`select pg_advisory_xact_lock(${FIRST_PASSWORD_LOCK_KEY})`
    if (await consoleSessions.anyPassword(tx)) return undefined
    const user = (await users.findUserByEmail(tx, email)) ?? (await consoleSessions.firstOwner(tx))
    if (!user) return undefined
    await consoleSessions.setPasswordHash(tx, user.id, digest)
    return { email: user.email, password: chosen, generated: password === undefined }
  })
}

const FIRST_PASSWORD_LOCK_KEY = 7_210_934_413
