/**
 * The read settings (`_sync_state.read_with`, src/api/read-settings.ts) of each stream's complete days: a handful,
 * so a sync compares them with today's in one query and asks for days only of a setting that changed.
 */
export const READ_SETTINGS_IN_USE_SQL = `SELECT DISTINCT stream, read_with FROM _sync_state
 WHERE status = 'complete' AND "day" IS NOT NULL AND read_with IS NOT NULL ORDER BY ALL`;

/**
 * A stream's complete days of a brand before a day that were read with one of the given settings ($1 brand, $2 stream,
 * $3 the day, $4 the settings' texts): their first and last day and how many, per setting.
 */
export const DAYS_READ_WITH_SQL = `SELECT read_with, min("day")::VARCHAR AS first, max("day")::VARCHAR AS last, count(*)::INTEGER AS days
  FROM _sync_state
 WHERE brand_id = $1 AND stream = $2 AND status = 'complete' AND "day" IS NOT NULL AND "day" < CAST($3 AS DATE)
   AND list_contains(CAST($4 AS VARCHAR[]), read_with)
 GROUP BY read_with ORDER BY first`;

/** Days of a stream read with settings other than today's, as DAYS_READ_WITH_SQL finds them. */
export interface DaysReadWith {
  readWith: string;
  first: string;
  last: string;
  days: number;
}
