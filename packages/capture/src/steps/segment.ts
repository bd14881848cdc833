import { ok, type Step } from '../pipeline'
import { isJsonObject } from '@burrow/contracts'

const SEGMENT_TYPES = new Set(['track', 'identify', 'alias', 'page', 'screen', 'group'])

/** Context fields of Segment's spec and the PostHog properties they become. */
function propertiesFromContext(context: Record<string, unknown>): Record<string, unknown> {
  const props: Record<string, unknown> = {}
  const library = isJsonObject(context.library) ? context.library : {}
  const page = isJsonObject(context.page) ? context.page : {}
  if (typeof context.ip === 'string') props.$ip = context.ip
  if (typeof context.userAgent === 'string') props.$raw_user_agent = context.userAgent
  if (typeof library.name === 'string') props.$lib = library.name
  if (typeof library.version === 'string') props.$lib_version = library.version
  if (typeof page.url === 'string') props.$current_url = page.url
  if (typeof page.path === 'string') props.$pathname = page.path
  if (typeof page.referrer === 'string') props.$referrer = page.referrer
  return props
}

/**
 * Turns a Segment-style typed message (`type`, `userId`/`anonymousId`, `traits`, `context`,
 * `messageId`) into the PostHog event it stands for. Events that already are PostHog events
 * (a name and a distinct id of their own) pass unchanged.
 */
export const segmentToPostHog: Step = {
  name: 'segment_to_posthog',
  run(event) {
    const raw = event.input
    const type = typeof raw.type === 'string' ? raw.type : undefined
    const hasSegmentIds = raw.userId !== undefined || raw.anonymousId !== undefined
    if (!type || !SEGMENT_TYPES.has(type) || (!hasSegmentIds && raw.event !== undefined)) return ok

    const userId = raw.userId ?? raw.anonymousId
    const traits = isJsonObject(raw.traits) ? raw.traits : undefined
    const properties: Record<string, unknown> = {
      ...(isJsonObject(raw.context) ? propertiesFromContext(raw.context) : {}),
      ...(isJsonObject(raw.properties) ? raw.properties : {}),
    }
    const converted: Record<string, unknown> = { ...raw, properties }
    if (userId !== undefined && converted.distinct_id === undefined) converted.distinct_id = userId
    if (typeof raw.messageId === 'string' && converted.uuid === undefined) converted.uuid = raw.messageId

    switch (type) {
      case 'track':
        break
      case 'identify':
        converted.event = '$identify'
        if (traits) properties.$set = { ...(isJsonObject(properties.$set) ? properties.$set : {}), ...traits }
        if (raw.userId !== undefined && raw.anonymousId !== undefined) properties.$anon_distinct_id = raw.anonymousId
        break
      case 'alias':
        converted.event = '$create_alias'
        if (raw.previousId !== undefined) properties.alias = raw.previousId
        break
      case 'page':
      case 'screen':
        converted.event = raw.event ?? (type === 'page' ? '$page' : '$screen')
        if (raw.name !== undefined) properties.name = raw.name
        if (raw.category !== undefined) properties.category = raw.category
        break
      case 'group':
        converted.event = '$groupidentify'
        properties.$group_type = properties.$group_type ?? 'company'
        properties.$group_key = raw.groupId
        if (traits) properties.$group_set = traits
        break
    }
    event.input = converted
    return ok
  },
}
