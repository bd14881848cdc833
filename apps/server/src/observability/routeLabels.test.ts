import { describe, expect, it } from 'vitest'
import { methodLabel, routeLabel } from './routeLabels'

describe('route labels', () => {
  it('names the private API by route pattern, so that ids make no series of their own', () => {
    expect(routeLabel('/api/projects/12/')).toBe('/api/projects/:id/')
    expect(routeLabel('/api/projects/12')).toBe('/api/projects/:id/')
    expect(routeLabel('/api/projects/12/persons/')).toBe('/api/projects/:project_id/persons/')
    expect(routeLabel('/api/projects/12/feature_flags/7/')).toBe('/api/projects/:project_id/feature_flags/:id/')
    expect(routeLabel('/api/nothing/here/')).toBe('api_unmatched')
  })

  it('names the SDK and service endpoints', () => {
    expect(routeLabel('/e/')).toBe('capture')
    expect(routeLabel('/decide/')).toBe('decide')
    expect(routeLabel('/flags/')).toBe('flags')
    expect(routeLabel('/_readyz')).toBe('readyz')
    expect(routeLabel('/_health/live')).toBe('livez')
    expect(routeLabel('/wp-admin/setup.php')).toBe('other')
  })

  it('keeps made-up methods to one label', () => {
    expect(methodLabel('GET')).toBe('GET')
    expect(methodLabel('BREW')).toBe('other')
  })
})
