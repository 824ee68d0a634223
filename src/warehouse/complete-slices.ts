import { completeOnceOver } from './complete-once-over.js';

/**
 * The SQL of the slices a `backfill --skip-complete` leaves out: those of the asked brands and streams whose state is
 * complete and whose window had ended (UTC) when they completed. $1 a JSON list of [brand, stream, slice key, a day,
 * whether the slice is a full-refresh list]: for a slice of days, the day after its last; for a list, today (UTC).
 * A list is what it is when read, and `articles` files the day it was planned under: it counts only if the run that
 * loaded it started today (a run that began before midnight planned it on the day before, however late it loaded).
 * One scan of `_sync_state`, joined to the plan, so only the slices to leave out come back, however large the file.
 */
export const COMPLETE_SLICES_SQL = `WITH asked AS (
    SELECT CAST(a->>0 AS BIGINT) AS brand_id, a->>1 AS stream, a->>2 AS slice_key, CAST(a->>3 AS DATE) AS day,
           CAST(a->>4 AS BOOLEAN) AS list
      FROM (SELECT unnest(CAST(CAST($1 AS JSON) AS JSON[])) AS a))
  SELECT s.brand_id, s.stream, s.slice_key
  FROM _sync_state s
  JOIN asked a ON a.brand_id = s.brand_id AND a.stream = s.stream AND a.slice_key = s.slice_key
  LEFT JOIN _sync_runs r ON r.run_id = s.run_id
 WHERE s.stream IN (SELECT stream FROM asked)
   AND CASE WHEN a.list THEN s.status = 'complete' AND epoch(r.started_at) >= epoch(a.day::TIMESTAMP)
            ELSE ${completeOnceOver('a.day', 's')} END`;
