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
 * so that a load balancer sends its traffic elsewhere: what fails is the instance's own (its
 * disk, its spool). A failing one that is not critical (a dependency every instance shares) is
 * reported, status "degraded", with 200: taking every instance out of the load balancer for a
 * database they all share would refuse the events the spool still accepts.
 *
 * A check answers at once, from state kept up to date elsewhere (dependencies are checked in
 * the background): a probe must answer within the orchestrator's timeout whatever they do.
 */
export interface ReadinessCheck {
  name: string
  critical: boolean
  check(): CheckOutcome
}

export interface ReadinessReport {
  /** The release answering, as Grafana's /api/health says it. */
  version?: string
  /** The commit it was built from. */
  commit?: string
  status: 'ok' | 'degraded' | 'unavailable'
  checks: Record<string, { status: 'ok' | 'failing'; critical: boolean; error?: string } & Record<string, unknown>>
}

/** Reads every check and says whether the instance should take traffic. */
export function readinessReport(checks: readonly ReadinessCheck[]): ReadinessReport {
  const report: ReadinessReport = { status: 'ok', checks: {} }
  for (const check of checks) {
    let outcome: CheckOutcome
    try {
      outcome = check.check()
    } catch (err) {
      outcome = { ok: false, error: errorText(err) }
    }
    report.checks[check.name] = {
      status: outcome.ok ? 'ok' : 'failing',
      critical: check.critical,
      ...(outcome.error ? { error: outcome.error } : {}),
      ...outcome.detail,
    }
    if (outcome.ok) continue
    if (check.critical) report.status = 'unavailable'
    else if (report.status === 'ok') report.status = 'degraded'
  }
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
