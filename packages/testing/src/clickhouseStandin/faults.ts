/**
 * What can go wrong between a client and a ClickHouse server, on demand:
 * - `unavailable`: a proxy in front answers 503 (no ClickHouse exception), nothing runs;
 * - `reset`: the connection drops before the statement runs;
 * - `commit-then-reset`: the statement runs and commits, then the connection drops;
 * - `commit-then-hang`: the statement runs and commits, and the answer never comes, so the
 *   client gives up at its own timeout (the case an exactly-once insert must survive).
 */
export type FaultKind = 'unavailable' | 'reset' | 'commit-then-reset' | 'commit-then-hang'

export const FAULT_KINDS: readonly FaultKind[] = ['unavailable', 'reset', 'commit-then-reset', 'commit-then-hang']

export interface FaultRule {
  kind: FaultKind
  /** Only requests whose SQL contains this text (case-insensitive): `INSERT INTO events`. Every request when absent. */
  match?: string | undefined
  /** How many matching requests it hits, 1 by default. */
  times?: number | undefined
}

/** Faults waiting for the requests they hit, in the order they were asked for. */
export class FaultQueue {
  private rules: { kind: FaultKind; match: string | undefined; left: number }[] = []

  add(rule: FaultRule): void {
    const times = rule.times ?? 1
    if (!FAULT_KINDS.includes(rule.kind)) throw new Error(`unknown fault ${String(rule.kind)}`)
    if (!Number.isInteger(times) || times < 1) throw new Error(`a fault's times must be a positive integer, not ${times}`)
    this.rules.push({ kind: rule.kind, match: rule.match?.toLowerCase(), left: times })
  }

  /** The fault the request with this SQL meets, used up by it; undefined when none applies. */
  take(sql: string): FaultKind | undefined {
    const text = sql.toLowerCase()
    const index = this.rules.findIndex((r) => r.match === undefined || text.includes(r.match))
    const rule = this.rules[index]
    if (!rule) return undefined
    if (--rule.left === 0) this.rules.splice(index, 1)
    return rule.kind
  }

  clear(): void {
    this.rules = []
  }

  get pending(): number {
    return this.rules.reduce((sum, r) => sum + r.left, 0)
  }
}
