// docker/compose.yml cannot run on the project's machines (no container engine): what can be
// checked without one is checked here, against the Compose Specification's own schema.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Ajv } from 'ajv'
import { parse } from 'yaml'
import { describe, expect, it } from 'vitest'

const DOCKER_DIR = path.resolve(import.meta.dirname, '../../../docker')
const schema = JSON.parse(readFileSync(path.join(import.meta.dirname, 'fixtures/compose-spec/compose-spec.json'), 'utf8')) as object
const compose = parse(readFileSync(path.join(DOCKER_DIR, 'compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Record<string, any>>
}
const services = compose.services

describe('docker/compose.yml', () => {
  it('is a valid Compose file by the Compose Specification schema', () => {
    // The schema names draft-07 by its https address; Ajv knows the same meta-schema by its http one.
    const draft07 = createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-07.json') as object
    // Not strict: the schema uses annotations (`deprecated`) that draft-07 does not define.
    const ajv = new Ajv({ allErrors: true, strict: false })
    ajv.addMetaSchema({ ...draft07, $id: 'https://json-schema.org/draft-07/schema' })
    const validate = ajv.compile(schema)
    const valid = validate(compose)
    expect(validate.errors ?? []).toEqual([])
    expect(valid).toBe(true)
  })

  it('pins every image to a version', () => {
    for (const [name, service] of Object.entries(services)) {
      if (service.build) continue
      expect(service.image, name).toMatch(/:\d+(\.\d+)+/)
    }
  })

  it('has a health check on every service that others wait for, and they wait for it to be healthy', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, condition] of Object.entries((service.depends_on ?? {}) as Record<string, { condition: string }>)) {
        expect(condition.condition, `${name} → ${dependency}`).toBe('service_healthy')
        expect(services[dependency]?.healthcheck?.test, `${dependency}'s health check`).toBeDefined()
      }
    }
    for (const name of ['postgres', 'redis', 'clickhouse', 'ingestion-1', 'ingestion-2', 'api', 'keeper']) {
      expect(services[name]?.healthcheck?.test, name).toBeDefined()
    }
  })

  it('publishes ClickHouse on the host loopback only', () => {
    for (const [name, service] of Object.entries(services)) {
      if (!String(service.image).startsWith('clickhouse/')) continue
      for (const port of (service.ports ?? []) as string[]) expect(port, name).toMatch(/^127\.0\.0\.1:/)
    }
  })

  it('gives each instance of the service a volume of its own for DATA_DIR', () => {
    const instances = Object.entries(services).filter(([, s]) => s.image === 'burrow:local')
    expect(instances.map(([name]) => name).sort()).toEqual(['api', 'ingestion-1', 'ingestion-2'])
    const volumes = instances.map(([, s]) => (s.volumes as string[]).find((v) => v.endsWith(':/data')))
    expect(new Set(volumes).size).toBe(instances.length)
    for (const [name, s] of instances) expect(s.environment.DATA_DIR, name).toBe('/data')
  })

  it("believes X-Forwarded-For from the load balancer's address alone, so that events record the client's address", () => {
    const lbAddress = (services.lb!.networks as { default: { ipv4_address: string } }).default.ipv4_address
    expect(lbAddress).toMatch(/^\$\{BURROW_LB_ADDRESS:-\d+\.\d+\.\d+\.\d+\}$/)
    const subnet = (compose as unknown as { networks: { default: { ipam: { config: Array<{ subnet: string }> } } } }).networks.default.ipam
      .config[0]!.subnet
    const [lbDefault, subnetDefault] = [lbAddress, subnet].map((value) => /:-([^}]+)\}/.exec(value)![1]!)
    expect(lbDefault!.split('.').slice(0, 3)).toEqual(subnetDefault!.split('/')[0]!.split('.').slice(0, 3))
    for (const [name, s] of Object.entries(services).filter(([, s]) => s.image === 'burrow:local')) {
      expect(s.environment.TRUSTED_PROXIES, name).toBe(lbAddress)
      expect(s.environment.TRUST_PROXY, name).toBeUndefined()
    }
  })

  it('takes every password from the .env file, with none written in it', () => {
    const text = readFileSync(path.join(DOCKER_DIR, 'compose.yml'), 'utf8')
    for (const line of text.split('\n').filter((l) => /PASSWORD/.test(l) && !l.trim().startsWith('#'))) {
      expect(line).toMatch(/\$\{[A-Z_]*PASSWORD[:?][^}]*\}|from_env/)
    }
    const example = readFileSync(path.join(DOCKER_DIR, '.env.example'), 'utf8')
    for (const variable of ['POSTGRES_PASSWORD', 'CLICKHOUSE_PASSWORD']) expect(example).toMatch(new RegExp(`^${variable}=$`, 'm'))
  })

  it('adds a Keeper and the cluster configuration in the cluster profile only', () => {
    const cluster = Object.entries(services).filter(([, s]) => (s.profiles as string[] | undefined)?.includes('cluster'))
    expect(cluster.map(([name]) => name).sort()).toEqual(['clickhouse-1', 'clickhouse-2', 'clickhouse-3', 'clickhouse-4', 'keeper'])
    for (const [name, s] of cluster.filter(([n]) => n !== 'keeper')) {
      expect(s.volumes as string[], name).toContain('./clickhouse/cluster.xml:/etc/clickhouse-server/config.d/cluster.xml:ro')
    }
    const config = readFileSync(path.join(DOCKER_DIR, 'clickhouse/cluster.xml'), 'utf8')
    for (const host of ['clickhouse-1', 'clickhouse-2', 'clickhouse-3', 'clickhouse-4', 'keeper'])
      expect(config).toContain(`<host>${host}</host>`)
  })

  it('is what scripts/cluster-smoke.sh starts: valid shell, naming the profile’s servers and its cluster', () => {
    const script = path.resolve(DOCKER_DIR, '../scripts/cluster-smoke.sh')
    execFileSync('bash', ['-n', script])
    const text = readFileSync(script, 'utf8')
    for (const host of ['clickhouse-1', 'clickhouse-2', 'clickhouse-3', 'clickhouse-4']) expect(Object.keys(services)).toContain(host)
    expect(text).toContain('--profile cluster')
    expect(text).toContain('CLICKHOUSE_CLUSTER=burrow')
    expect(readFileSync(path.join(DOCKER_DIR, 'clickhouse/cluster.xml'), 'utf8')).toContain('<burrow>')
  })
})
