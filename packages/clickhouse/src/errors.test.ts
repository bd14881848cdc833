import { ClickHouseError } from '@clickhouse/client'
import { describe, expect, it } from 'vitest'
import {
  asClickHouseFailure,
  ClickHouseHttpError,
  ClickHouseTimedOut,
  isClickHouseRefusal,
  isClickHouseUnavailable,
  isQueryTimeout,
  refusalWithAdvice,
} from './errors'

const exception = (code: number, type: string) => new ClickHouseError({ message: `${type} happened`, code: String(code), type })
const network = (code: string) => Object.assign(new Error(`connect ${code} 10.0.0.5:8123`), { code })

describe('telling a ClickHouse that is not answering from one that refuses', () => {
  it('counts refused, reset and timed-out connections, and 5xx answers without an exception, as not answering', () => {
    for (const err of [
      network('ECONNREFUSED'),
      network('ECONNRESET'),
      new Error('Timeout error.'),
      new ClickHouseHttpError(502, 'Bad Gateway'),
    ]) {
      const failure = asClickHouseFailure(err, 'ch:8123/db')
      expect(isClickHouseUnavailable(failure)).toBe(true)
      expect(isClickHouseRefusal(failure)).toBe(false)
      expect((failure as Error).message).toBe(
        err instanceof ClickHouseHttpError
          ? 'ClickHouse at ch:8123/db is not available (HTTP 502)'
          : `ClickHouse at ch:8123/db is not answering: ${err.message}`,
      )
    }
  })

  it('counts an exception waiting cannot cure (a password, replicated DDL without a Keeper, a syntax error), and a 4xx from a proxy, as refused', () => {
    for (const err of [
      exception(516, 'AUTHENTICATION_FAILED'),
      exception(392, 'QUERY_IS_PROHIBITED'),
      exception(62, 'SYNTAX_ERROR'),
      new ClickHouseHttpError(431, ''),
    ]) {
      const failure = asClickHouseFailure(err, 'ch:8123/db')
      expect(isClickHouseRefusal(failure)).toBe(true)
      expect(isClickHouseUnavailable(failure)).toBe(false)
    }
  })

  it('counts an overloaded or restarting server as not a refusal', () => {
    for (const [code, type] of [
      [202, 'TOO_MANY_SIMULTANEOUS_QUERIES'],
      [242, 'TABLE_IS_READ_ONLY'],
      [999, 'KEEPER_EXCEPTION'],
    ] as const) {
      expect(isClickHouseRefusal(exception(code, type))).toBe(false)
    }
  })

  it('names what to change for a refusal that comes from the configuration', () => {
    const cluster = refusalWithAdvice(exception(392, 'QUERY_IS_PROHIBITED'), { target: 'ch:8123/db', cluster: 'posthog' })
    expect(cluster.message).toMatch(
      /^CLICKHOUSE_CLUSTER=posthog .*Keeper.*unset CLICKHOUSE_CLUSTER\. ClickHouse at ch:8123\/db answered code 392: QUERY_IS_PROHIBITED happened/,
    )
    const password = refusalWithAdvice(exception(516, 'AUTHENTICATION_FAILED'), { target: 'ch:8123/db' })
    expect(password.message).toMatch(/CLICKHOUSE_USER and CLICKHOUSE_PASSWORD/)
    expect(isClickHouseRefusal(cluster)).toBe(true)
  })

  it('says what answered in place of ClickHouse, an empty body included', () => {
    expect(new ClickHouseHttpError(431, '').message).toBe("ClickHouse's address answered HTTP 431 with an empty body")
    expect(new ClickHouseHttpError(414, '<html><head><title>414 Request-URI Too Large</title></head>\n<body>').message).toBe(
      "ClickHouse's address answered HTTP 414: <html><head><title>414 Request-URI Too Large</title></head>",
    )
  })

  it("reads the service's own time limit as a query timeout, as ClickHouse's", () => {
    expect(isQueryTimeout(new Error('wrapped', { cause: new ClickHouseTimedOut(60_000) }))).toBe(true)
    expect(isQueryTimeout(exception(159, 'TIMEOUT_EXCEEDED'))).toBe(true)
    expect(isQueryTimeout(exception(62, 'SYNTAX_ERROR'))).toBe(false)
  })
})
