import { openGeoIpDatabase, type GeoIpLookup } from './transformations/geoip'

/**
 * The GeoIP database of this process, opened once, when a GeoIP config is first enabled (the
 * bundled copy takes about a second and 100 MB to open, which a server without GeoIP never pays).
 */
export class GeoIpDatabase {
  private opening: Promise<void> | undefined
  private lookup: GeoIpLookup | undefined
  private failure: Error | undefined

  constructor(private readonly file: string | undefined) {}

  /** Opens the database if not yet done; resolves either way (a failure is kept and thrown by `get`). */
  ready(): Promise<void> {
    this.opening ??= openGeoIpDatabase(this.file).then(
      (lookup) => {
        this.lookup = lookup
      },
      (err: unknown) => {
        this.failure = new Error(`The GeoIP database could not be opened: ${err instanceof Error ? err.message : String(err)}`)
      },
    )
    return this.opening
  }

  get(): GeoIpLookup {
    if (this.lookup) return this.lookup
    throw this.failure ?? new Error('The GeoIP database is still opening')
  }
}
