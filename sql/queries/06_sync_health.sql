-- Question: is the data fresh and complete? The last runs, then each brand and stream: its slices by status, the
-- newest day complete and the latest error of a slice not complete.
-- Parameters (bvsync sql --param NAME=VALUE; in DuckDB's own CLI: SET VARIABLE NAME = VALUE):
--   brand   one brand id for the second query; default every brand
-- Columns (first query): run_id, kind, status, started_at, finished_at, slices, requests, rows, rejects, errors.
-- Columns (second query): brand_id, stream, slices, complete, incomplete, failed, newest_complete_day (the last
--   past day held complete: a day slice's day, a window's last day, a list's day before its read), today_partial (today's slice is loaded), last_loaded, latest_error (of a slice not complete, with its
--   error_code and request_id, as bvsync status shows them).
-- Today (UTC) is still filling up: its slice reads complete once fetched, yet the API adds to the day until it ends,
-- so it counts as partial, as in bvsync status.
-- Run: npx bvsync sql --file sql/queries/06_sync_health.sql
SELECT run_id, kind, status, started_at, finished_at, slices, requests, "rows", rejects, errors
FROM _sync_runs ORDER BY started_at DESC LIMIT 10;

WITH clock AS (SELECT CAST(now() AT TIME ZONE 'UTC' AS DATE) AS today)
SELECT
  brand_id,
  stream,
  count(*) AS slices,
  count(*) FILTER (WHERE status = 'complete') AS complete,
  count(*) FILTER (WHERE status = 'incomplete') AS incomplete,
  count(*) FILTER (WHERE status = 'failed') AS failed,
  -- The same rule as bvsync status (src/warehouse/state/complete-through.ts); test/e2e/status.int.test.ts compares them.
  max(CASE
    WHEN "day" IS NOT NULL THEN CASE WHEN status = 'complete' AND "day" < clock.today THEN "day" END
    WHEN completed_at IS NULL THEN NULL
    ELSE least(coalesce(try_cast(nullif(regexp_extract(slice_key, '\.\.(\d{4}-\d{2}-\d{2})$', 1), '') AS DATE), clock.today),
               DATE '1970-01-01' + CAST(floor(epoch(completed_at) / 86400) AS INTEGER) - 1, clock.today - 1)
  END) AS newest_complete_day,
  coalesce(bool_or("day" >= clock.today), false) AS today_partial,
  max(updated_at) AS last_loaded,
  arg_max(error_code || ': ' || coalesce(last_error, '') || coalesce(' (request ' || request_id || ')', ''), updated_at)
    FILTER (WHERE status <> 'complete') AS latest_error
FROM _sync_state, clock
WHERE getvariable('brand') IS NULL OR brand_id = getvariable('brand')
GROUP BY brand_id, stream
ORDER BY brand_id, stream;
