import { isClickHouseRefusal } from '@burrow/clickhouse'
import { Gauge, type Registry } from 'prom-client'
import type { Logger } from './logger'
import { errorText, type CheckOutcome, type ReadinessCheck } from './observability/probes'

export interface WaitOptions {
  /** How long to keep trying (DEPENDENCY_WAIT_MS); 0: one attempt. */
  waitMs: number
  logger: Logger
  /** Back-off bounds between attempts. */
  firstDelayMs?: number
  maxDelayMs?: number
}

/** A dependency that did not answer at start within the time allowed. */
export class DependencyUnavailable extends Error {
  constructor(
    readonly dependency: string,
    readonly target: string,
    waitedMs: number | 'refused',
    cause: unknown,
  ) {
    super(
      waitedMs === 'refused'
        ? `${dependency} at ${target} refused the connection: ${errorText(cause)}`
        : `${dependency} at ${target} did not answer within ${Math.round(waitedMs / 1000)} s (DEPENDENCY_WAIT_MS): ${errorText(cause)}`,
      { cause },
    )
    this.name = 'DependencyUnavailable'
  }
}

/**
 * Errors that waiting does not cure: a refused password, an unknown user, a ClickHouse that
 * answers with an exception (replicated DDL without a Keeper, a syntax it does not know) rather
 * than not answering. The start fails at once on these instead of retrying them for DEPENDENCY_WAIT_MS.
 */
function isPermanent(err: unknown): boolean {
  const raw = (err as { code?: unknown })?.code
  const code = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : ''
  const message = String((err as Error)?.message ?? '')
  // PostgreSQL: invalid_password, invalid_authorization_specification; ClickHouse: AUTHENTICATION_FAILED (516).
  return code === '28P01' || code === '28000' || code === '516' || /Authentication failed/i.test(message) || isClickHouseRefusal(err)
}

/**
 * Runs `attempt` until it succeeds, with back-off, for up to `waitMs`: a database started
 * alongside the service (a compose file, a pod) often answers a few seconds after it. Each
 * failure is logged with the dependency and where it is (a host, never a password).
 */
export async function waitForDependency<T>(
  dependency: string,
  target: string,
  attempt: () => Promise<T>,
  options: WaitOptions,
): Promise<T> {
  const started = Date.now()
  let delay = options.firstDelayMs ?? 250
  for (let tries = 1; ; tries++) {
    try {
      const result = await attempt()
      if (tries > 1) options.logger.info({ dependency, target, attempts: tries }, `${dependency} at ${target} answered`)
      return result
    } catch (err) {
      const waited = Date.now() - started
      if (isPermanent(err)) throw new DependencyUnavailable(dependency, target, 'refused', err)
      if (waited + delay > options.waitMs) throw new DependencyUnavailable(dependency, target, waited, err)
      options.logger.warn(
        { dependency, target, attempt: tries, retry_in_ms: delay, err: errorText(err) },
        `${dependency} at ${target} is not answering, retrying in ${delay} ms`,
      )
      await new Promise((resolve) => setTimeout(resolve, delay))
      delay = Math.min(delay * 2, options.maxDelayMs ?? 5_000)
    }
  }
}

/** A shared dependency as probes and metrics look at it. */
export interface Dependency {
  name: 'postgres' | 'redis' | 'clickhouse'
  /**
   * Throws when the dependency does not answer; may answer figures for the readiness report.
   * Stops its work when `signal` aborts (the check's deadline).
   */
  probe(signal: AbortSignal): Promise<CheckOutcome['detail'] | void> | CheckOutcome['detail'] | void
}

export interface DependencyWatchOptions {
  registry: Registry
  /** How often each dependency is checked (DEPENDENCY_CHECK_INTERVAL_MS). */
  intervalMs: number
  /** A check unanswered this long fails (DEPENDENCY_CHECK_TIMEOUT_MS). */
  timeoutMs: number
  /** Told when a dependency starts failing and when it answers again. */
  onChange?: (name: Dependency['name'], outcome: CheckOutcome) => void
}

/**
 * The shared dependencies' state, kept up to date in the background: each dependency is
 * checked on an interval with a deadline of its own, and readiness and /_metrics read the last
 * result, so that they answer at once whatever the dependencies do (a probe has about a second;
 * a dependency that hangs would otherwise take all of it). A readiness check per dependency,
 * and a gauge that says 1 when it answers. The checks are not critical for readiness: every
 * instance shares them, and taking them all out of the load balancer would turn a degraded
 * service (capture still accepted and kept in the spool) into a complete outage.
 */
export function watchDependencies(dependencies: readonly Dependency[], options: DependencyWatchOptions) {
  const outcomes = new Map<string, CheckOutcome>()
  const running = new Map<string, Promise<void>>()
  const up = new Gauge({
    name: 'burrow_dependency_up',
    help: 'Whether a shared dependency answered its last check (1) or not (0), checked in the background every DEPENDENCY_CHECK_INTERVAL_MS',
    labelNames: ['dependency'] as const,
    registers: [options.registry],
  })
  const record = (dependency: Dependency, outcome: CheckOutcome) => {
    const before = outcomes.get(dependency.name)
    outcomes.set(dependency.name, outcome)
    up.set({ dependency: dependency.name }, outcome.ok ? 1 : 0)
    if (before && before.ok !== outcome.ok) options.onChange?.(dependency.name, outcome)
  }
  const checkOne = (dependency: Dependency): Promise<void> => {
    // One check at a time per dependency: its deadline ends it, so none pile up on one that hangs.
    const current = running.get(dependency.name)
    if (current) return current
    const check = probeWithin(dependency, options.timeoutMs)
      .then((outcome) => record(dependency, outcome))
      .finally(() => running.delete(dependency.name))
    running.set(dependency.name, check)
    return check
  }
  const checkAll = () => Promise.all(dependencies.map(checkOne))
  let timer: NodeJS.Timeout | undefined
  return {
    /** Checks every dependency once (so that the first probe has an answer), then on the interval. */
    async start(): Promise<void> {
      await checkAll()
      timer = setInterval(() => void checkAll(), options.intervalMs)
      timer.unref()
    },
    stop(): void {
      clearInterval(timer)
    },
    /** The last outcome of a dependency's check. */
    outcome: (name: Dependency['name']): CheckOutcome | undefined => outcomes.get(name),
    checks: dependencies.map((dependency): ReadinessCheck => ({
      name: dependency.name,
      critical: false,
      check: () => outcomes.get(dependency.name) ?? { ok: false, error: 'not checked yet' },
    })),
  }
}

async function probeWithin(dependency: Dependency, timeoutMs: number): Promise<CheckOutcome> {
  let timer: NodeJS.Timeout | undefined
  const abort = new AbortController()
  const started = performance.now()
  try {
    const detail = await Promise.race([
      Promise.resolve().then(() => dependency.probe(abort.signal)),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
      }),
    ])
    return { ok: true, detail: detail ?? { latency_ms: Math.round((performance.now() - started) * 10) / 10 } }
  } catch (err) {
    return { ok: false, error: errorText(err) }
  } finally {
    clearTimeout(timer)
    abort.abort()
  }
}
