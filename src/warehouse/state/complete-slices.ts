import { completeOnceOver } from './complete-once-over.js';

/**
 * The slices `backfill --skip-complete` leaves out (complete, read after their window ended, UTC), in one scan:
 * $1 a JSON list of [brand, stream, key, day after a day slice's last or today for a list run today, list?].
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
