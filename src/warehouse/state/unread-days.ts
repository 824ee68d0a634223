/**
 * How many days of a range each series of day slices (a key before its day, src/streams/slicing.ts) was read, in one
 * scan: $1 a JSON list of [brand, stream, series, first day, the day after the last].
 */
export const SERIES_READ_DAYS_SQL = `WITH asked AS (
    SELECT CAST(a->>0 AS BIGINT) AS brand_id, a->>1 AS stream, a->>2 AS series, CAST(a->>3 AS DATE) AS first, CAST(a->>4 AS DATE) AS before
      FROM (SELECT unnest(CAST(CAST($1 AS JSON) AS JSON[])) AS a)),
  read AS (
    SELECT brand_id, stream, left(slice_key, length(slice_key) - 10) AS series, "day" FROM _sync_state
     WHERE stream IN (SELECT stream FROM asked)
       AND "day" >= (SELECT min(first) FROM asked) AND "day" < (SELECT max(before) FROM asked))
  SELECT a.brand_id, a.stream, a.series, count(c."day")::INTEGER AS days
  FROM asked a
  LEFT JOIN read c ON c.brand_id = a.brand_id AND c.stream = a.stream AND c.series = a.series AND c."day" >= a.first AND c."day" < a.before
 GROUP BY ALL`;
