import type { PlainRow } from '../warehouse/read-rows.js';
import type { FreshnessRow } from './sync-metrics.js';

// The newest complete day of each brand and stream; streams without days (full refreshes) have none and are left out.
const NEWEST_COMPLETE_DAY_SQL = `
SELECT brand_id AS brand, stream, max("day")::VARCHAR AS newest
FROM _sync_state WHERE status = 'complete' AND "day" IS NOT NULL
GROUP BY ALL ORDER BY ALL`;

/** Freshness per brand and stream, read through any query function on the working or published database. */
export async function readFreshness(query: (sql: string) => Promise<PlainRow[]>): Promise<FreshnessRow[]> {
  const rows = await query(NEWEST_COMPLETE_DAY_SQL);
  return rows.map((row) => ({ brand: Number(row.brand), stream: String(row.stream), newestCompleteDay: row.newest === null ? null : String(row.newest) }));
}
