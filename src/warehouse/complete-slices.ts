import { completeOnceOver } from './complete-once-over.js';

/**
 * The SQL of the slices a `backfill --skip-complete` leaves out: those of the asked brands and streams whose state is
 * complete and whose window had ended (UTC) when they completed. $1 a JSON list of [brand, stream, slice key, the day
 * after the slice's last day]; for a full-refresh list, which is what the list is when read, the run's today, so only
 * a list read today counts. One scan of `_sync_state`, joined to the plan, so only the slices to leave out come back,
 * however large the file.
 */
export const COMPLETE_SLICES_SQL = `WITH asked AS (
    SELECT CAST(a->>0 AS BIGINT) AS brand_id, a->>1 AS stream, a->>2 AS slice_key, CAST(a->>3 AS DATE) AS over
      FROM (SELECT unnest(CAST(CAST($1 AS JSON) AS JSON[])) AS a))
  SELECT s.brand_id, s.stream, s.slice_key
  FROM _sync_state s
  JOIN asked a ON a.brand_id = s.brand_id AND a.stream = s.stream AND a.slice_key = s.slice_key
 WHERE s.stream IN (SELECT stream FROM asked) AND ${completeOnceOver('a.over', 's')}`;
