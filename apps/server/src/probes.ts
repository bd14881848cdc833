/** What one check found: whether its part works, and what an operator reads to see why. */
export interface CheckOutcome {
  ok: boolean
  /** A short reason when not ok (no secrets, no stack). */
  error?: string
  /** Figures that say how close to failing the part is (bytes used, the bound). */
  detail?: Record<string, number | string | boolean>
}

/**
 * One part readiness looks at. A critical check that fails makes the instance not ready (503),
 * so that a load balancer sends its traffic elsewhere; a failing one that is not critical is
 * reported (status "degraded") but the instance keeps taking traffic.
 */
export interface ReadinessCheck {
  name: string
  critical: boolean
  check(): CheckOutcome | Promise<CheckOutcome>
}

export interface ReadinessReport {
  /** The release answering, as Grafana's /api/health says it. */
  version?: string
  status: 'ok' | 'degraded' | 'unavailable'
  checks: Record<string, { status: 'ok' | 'failing'; critical: boolean; error?: string } & Record<string, unknown>>
}

/** A check that has not answered in this time counts as failing: a probe must answer within its own timeout. */
export const CHECK_TIMEOUT_MS = 2_000

async function outcomeOf(check: ReadinessCheck, timeoutMs: number): Promise<CheckOutcome> {
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, error: `no answer within ${timeoutMs} ms` }), timeoutMs)
  })
  try {
    return await Promise.race([Promise.resolve().then(() => check.check()), timedOut])
  } catch (err) {
    return { ok: false, error: errorText(err) }
  } finally {
    clearTimeout(timer)
  }
}

/** Runs every check at once and says whether the instance should take traffic. */
export async function runReadinessChecks(checks: readonly ReadinessCheck[], timeoutMs = CHECK_TIMEOUT_MS): Promise<ReadinessReport> {
  const outcomes = await Promise.all(checks.map((check) => outcomeOf(check, timeoutMs)))
  const report: ReadinessReport = { status: 'ok', checks: {} }
  checks.forEach((check, i) => {
    const outcome = outcomes[i]!
    report.checks[check.name] = {
      status: outcome.ok ? 'ok' : 'failing',
      critical: check.critical,
      ...(outcome.error ? { error: outcome.error } : {}),
      ...outcome.detail,
    }
    if (outcome.ok) return
    if (check.critical) report.status = 'unavailable'
    else if (report.status === 'ok') report.status = 'degraded'
  })
  return report
}

/**
 * An error as a probe shows it: its code and first line, which say what failed (ECONNREFUSED,
 * a timeout) without a stack or a query.
 */
export function errorText(err: unknown): string {
  const code = (err as { code?: unknown })?.code
  const message = String((err as Error)?.message ?? err)
    .split('\n')[0]!
    .slice(0, 200)
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message
}
