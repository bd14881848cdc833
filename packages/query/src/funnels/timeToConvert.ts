/**
 * PostHog's time to convert: each counted person who reached `toStep` took
 * `times[toStep] - times[fromStep]`; the histogram starts at the floor of the fastest, its bins are
 * ceil((ceil(slowest) - floor(fastest)) / binCount) seconds wide (60 when that is 0), and there is
 * one bin more than `binCount`, so that the slowest always has a bin. Without `binCount`, the count
 * is the cube root of the number of persons, rounded up, between 1 and 60; a given one is held
 * between 1 and 90.
 */
export function timeToConvertSql(options: { perPerson: string; fromStep: number; toStep: number; binCount: number | null }): string {
  const { fromStep, toStep } = options
  const bins =
    options.binCount === null
      ? 'toUInt32(least(60, greatest(1, ceil(cbrt(length(timings))))))'
      : `toUInt32(${Math.min(90, Math.max(1, Math.trunc(options.binCount)))})`
  return `SELECT
      ${bins} AS bin_count,
      floor(arrayMin(timings)) AS min_timing,
      ceil(arrayMax(timings)) AS max_timing,
      ceil((max_timing - min_timing) / bin_count) AS raw_width,
      if(raw_width > 0, raw_width, 60) AS bin_width,
      arrayMap(k -> toInt64(round(min_timing + k * bin_width)), range(0, bin_count + 1)) AS buckets,
      arrayMap(t -> toInt64(floor((t - min_timing) / bin_width)), timings) AS indices,
      arrayMap(k -> countEqual(indices, k - 1), range(1, bin_count + 2)) AS counts,
      if(empty(timings), NULL, arrayAvg(timings)) AS average,
      if(empty(timings), NULL, arrayReduce('quantileExactInclusive(0.5)', timings)) AS median
    FROM (
      SELECT groupArray(times[${toStep + 1}] - times[${fromStep + 1}]) AS timings FROM ${options.perPerson} WHERE level >= ${toStep + 1}
    )`
}

export interface Histogram {
  buckets: Array<number | string>
  counts: Array<number | string>
  average: number | string | null
  median: number | string | null
}

/** PostHog's answer: `bins` as `[seconds, persons]` pairs. */
export function timeToConvertResult(row: Histogram | undefined) {
  const buckets = row?.buckets ?? []
  const time = (value: number | string | null | undefined) => (value === null || value === undefined ? null : Number(value))
  return {
    bins: buckets.map((from, i) => [Number(from), Number(row?.counts[i] ?? 0)]),
    average_conversion_time: time(row?.average),
    median_conversion_time: time(row?.median),
  }
}
