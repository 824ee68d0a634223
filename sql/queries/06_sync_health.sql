-- Question: is the data fresh and complete? The last runs, then every slice not complete, newest first.
-- Parameters: none.
-- Columns (first query): run_id, kind, status, started_at, finished_at, slices, requests, rows, rejects, errors.
-- Columns (second query): brand_id, stream, slice_key, status, rows, total_rows, attempts, last_error, error_code, updated_at.
SELECT run_id, kind, status, started_at, finished_at, slices, requests, "rows", rejects, errors
FROM _sync_runs ORDER BY started_at DESC LIMIT 10;

SELECT brand_id, stream, slice_key, status, "rows", total_rows, attempts, last_error, error_code, updated_at
FROM _sync_state WHERE status <> 'complete' ORDER BY updated_at DESC;
