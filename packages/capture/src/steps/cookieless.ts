import { isJsonObject } from '@burrow/contracts'
import {
  COOKIELESS_EXTRA_PROPERTY,
  cookielessDeviceId,
  cookielessDistinctId,
  dailySessionId,
  isCookieless,
  visitDay,
  visitorHash,
} from '../cookieless'
import { drop, ok, type Step } from '../pipeline'

/**
 * Events of posthog-js's cookieless mode: dropped unless the project enables cookieless server
 * hash mode; else the sentinel distinct id becomes the visitor's daily hash, with the device and
 * session ids PostHog derives from it, and the address and user agent hashed are not stored.
 * Aliases and merges have no visitor to name and are dropped, as is `$identify` in stateless
 * mode. In stateful mode the device id is set here and the distinct and session ids once the
 * shared state is read (cookielessVisits.ts).
 */
export const hashCookielessVisitor: Step = {
  name: 'cookieless_server_hash',
  run(event, ctx) {
    const properties = event.properties
    if (!isCookieless(event.distinctId, properties)) return ok
    if (event.name === '$create_alias' || event.name === '$merge_dangerously') return drop('cookieless_unsupported_event')
    if (!ctx.project.cookielessMode) return drop('cookieless_team_disabled')
    if (event.name === '$identify' && !ctx.cookielessStateful) return drop('cookieless_stateless_no_identify')
    const userAgent = properties.$raw_user_agent
    const ip = typeof properties.$ip === 'string' && properties.$ip !== '' ? properties.$ip : ctx.ip
    const host = properties.$host
    if (typeof userAgent !== 'string' || userAgent === '') return drop('cookieless_missing_ua')
    if (!ip) return drop('cookieless_missing_ip')
    if (typeof host !== 'string' || host === '') return drop('cookieless_missing_host')
    const { day, startMs } = visitDay(Math.floor(event.timestampUs / 1000), properties.$timezone, ctx.project.timezone)
    const salt = ctx.cookielessSalts?.get(day)
    if (!salt) return drop('cookieless_timestamp_out_of_range')
    const extra = properties[COOKIELESS_EXTRA_PROPERTY]
    const extraText = typeof extra === 'string' ? extra : ''
    const hash = visitorHash(salt, ctx.project.id, ip, host, userAgent, extraText)
    properties.$device_id = cookielessDeviceId(hash)
    if (ctx.cookielessStateful) {
      event.cookieless = { salt, ip, host, userAgent, extra: extraText, baseHash: hash, timestampMs: Math.floor(event.timestampUs / 1000) }
      delete properties.$distinct_id
    } else {
      event.distinctId = cookielessDistinctId(hash)
      properties.$distinct_id = event.distinctId
      properties.$session_id = dailySessionId(startMs, hash)
    }
    delete properties.$ip
    delete properties.$raw_user_agent
    delete properties[COOKIELESS_EXTRA_PROPERTY]
    if (isJsonObject(properties.$set)) delete properties.$set.$raw_user_agent
    if (isJsonObject(properties.$set_once)) delete properties.$set_once.$initial_raw_user_agent
    return ok
  },
}
