export * as plugins from './runtime'
export * as pluginConfigs from './pluginConfigs'
