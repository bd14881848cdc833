export { startApp, type RunningApp } from './app'
export { createLogger, type Logger } from './logger'
