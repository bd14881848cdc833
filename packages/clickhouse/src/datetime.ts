/** ClickHouse DateTime64(6) text, e.g. `2024-05-01 12:30:00.123000`, from epoch milliseconds. */
export function toClickHouseDateTime(ms: number): string {
  const iso = new Date(ms).toISOString() // 2024-05-01T12:30:00.123Z
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}000`
}

/** The API's timestamp form (ISO 8601 with a numeric offset, as PostHog answers) from ClickHouse text. */
export function clickHouseDateTimeToIso(value: string): string {
  return `${value.replace(' ', 'T')}+00:00`
}

/** ClickHouse DateTime64(6) text from epoch microseconds, keeping all six fraction digits. */
export function toClickHouseDateTimeUs(us: number): string {
  const ms = Math.floor(us / 1000)
  return `${toClickHouseDateTime(ms).slice(0, 23)}${String(us - ms * 1000).padStart(3, '0')}`
}
