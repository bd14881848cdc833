export { AppMetrics, type AppMetricCategory } from './appMetrics'
export { catalogEntry, enableTestPlugins, GEOIP, WEBHOOK_EXPORT, type PluginEnvironment } from './catalog'
export { GeoIpDatabase } from './geoIpDatabase'
export { INSTANCE_ID, logSystemEvent, PluginLogBuffer, LOG_ENTRIES_PER_MINUTE } from './logs'
export { labelOf, PluginConfigsResolver, pluginConfigsChanged, type ProjectPlugins } from './projectPlugins'
export type { PluginEvent, Transformation } from './transformations/event'
export { runTransformations, type LoadedTransformation, type TransformationOutcome } from './transformations/runner'
export {
  eventFilter as webhookEventFilter,
  SIGNATURE_HEADER,
  validateWebhookConfig,
  webhookRequest,
  type WebhookEvent,
} from './webhook/request'
export { WebhookSender, type WebhookSenderOptions } from './webhook/sender'
export { PluginJobRunner } from './jobs'
