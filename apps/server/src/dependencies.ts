import { Gauge, type Registry } from 'prom-client'
import type { Logger } from './logger'
import { errorText, type CheckOutcome, type ReadinessCheck } from './probes'

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
 * Errors that waiting does not cure: a refused password, an unknown user. The start fails
 * at once on these instead of retrying them for DEPENDENCY_WAIT_MS.
 */
function isPermanent(err: unknown): boolean {
  const raw = (err as { code?: unknown })?.code
  const code = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : ''
  const message = String((err as Error)?.message ?? '')
  // PostgreSQL: invalid_password, invalid_authorization_specification; ClickHouse: AUTHENTICATION_FAILED (516).
  return code === '28P01' || code === '28000' || code === '516' || /Authentication failed/i.test(message)
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
  /** Throws when the dependency does not answer. */
  probe(): Promise<void> | void
}

/** How long one probe's answer is reused: readiness probes and scrapes together would otherwise query each dependency every second. */
const PROBE_CACHE_MS = 1_000

/**
 * The shared dependencies' state: a readiness check each, and a gauge that says 1 when the
 * dependency answers. They are not critical for readiness: every instance shares them, and
 * taking them all out of the load balancer would turn a degraded service (capture still
 * accepted and kept in the spool) into a complete outage.
 */
export function watchDependencies(dependencies: readonly Dependency[], registry: Registry, timeoutMs: number) {
  const cached = new Map<string, { at: number; outcome: Promise<CheckOutcome> }>()
  const outcomeOf = (dependency: Dependency): Promise<CheckOutcome> => {
    const hit = cached.get(dependency.name)
    if (hit && Date.now() - hit.at < PROBE_CACHE_MS) return hit.outcome
    const outcome = probeWithin(dependency, timeoutMs)
    cached.set(dependency.name, { at: Date.now(), outcome })
    return outcome
  }
  new Gauge({
    name: 'burrow_dependency_up',
    help: 'Whether a shared dependency answers (1) or not (0), probed at each scrape',
    labelNames: ['dependency'] as const,
    registers: [registry],
    async collect() {
      const outcomes = await Promise.all(dependencies.map(outcomeOf))
      dependencies.forEach((dependency, i) => this.set({ dependency: dependency.name }, outcomes[i]!.ok ? 1 : 0))
    },
  })
  return {
    checks: dependencies.map((dependency): ReadinessCheck => ({
      name: dependency.name,
      critical: false,
      check: () => outcomeOf(dependency),
    })),
  }
}

async function probeWithin(dependency: Dependency, timeoutMs: number): Promise<CheckOutcome> {
  let timer: NodeJS.Timeout | undefined
  const started = performance.now()
  try {
    await Promise.race([
      Promise.resolve().then(() => dependency.probe()),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
      }),
    ])
    return { ok: true, detail: { latency_ms: Math.round((performance.now() - started) * 10) / 10 } }
  } catch (err) {
    return { ok: false, error: errorText(err) }
  } finally {
    clearTimeout(timer)
  }
}
