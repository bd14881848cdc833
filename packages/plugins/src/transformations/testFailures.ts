import type { PluginEvent } from './event'

/**
 * The test-only plugin: `$test_plugin` "throw" changes the event then throws, "slow" runs past
 * any budget, "drop" drops the event, "team" moves it to another project.
 */
export function testFailures(event: PluginEvent): PluginEvent | null {
  switch (event.properties.$test_plugin) {
    case 'throw':
      event.properties.changed_before_throwing = true
      throw new Error('Test plugin failed on purpose')
    case 'slow': {
      const until = performance.now() + 1_000
      while (performance.now() < until) {
        // Holds the thread, as a runaway plugin would.
      }
      return { ...event, properties: { ...event.properties, slow_result: true } }
    }
    case 'drop':
      return null
    case 'team':
      return { ...event, team_id: event.team_id + 1 }
    default:
      return event
  }
}
