-- 006: the latest attempt at a slice, recorded beside the state of the rows it holds. A re-fetch that comes out
-- worse than the slice's stored state (a failure of a slice that had loaded, an incomplete read of a complete one)
-- no longer replaces it: the rows and status, rows, total_rows, completed_at stay those of the last good load, so
-- freshness, status and the incremental planner still see the day as complete; the attempt lands in these columns.
-- A load that does replace the state writes both, so last_attempt_* is always the latest attempt.
ALTER TABLE _sync_state ADD COLUMN last_attempt_status VARCHAR;       -- complete | incomplete | failed
ALTER TABLE _sync_state ADD COLUMN last_attempt_at TIMESTAMPTZ;
ALTER TABLE _sync_state ADD COLUMN last_attempt_run_id VARCHAR;
ALTER TABLE _sync_state ADD COLUMN last_attempt_error VARCHAR;
ALTER TABLE _sync_state ADD COLUMN last_attempt_error_code VARCHAR;
ALTER TABLE _sync_state ADD COLUMN last_attempt_request_id VARCHAR;
ALTER TABLE _sync_state ADD COLUMN last_attempt_attempts INTEGER;

-- Until now every attempt replaced the state, so the state is the latest attempt.
UPDATE _sync_state SET last_attempt_status = status, last_attempt_at = updated_at, last_attempt_run_id = run_id,
  last_attempt_error = last_error, last_attempt_error_code = error_code, last_attempt_request_id = request_id,
  last_attempt_attempts = attempts;
