import { SLICE_QUERIES_TABLE } from './provenance.js';

/**
 * The SQL of a stream's complete days of a brand, before a day, that were read under another engines filter than the
 * one given ($1 brand, $2 stream, $3 the day, $4 the filter's ids sorted and joined by commas, '' for none): their
 * first and last day and how many. A slice that sent no filter has no `sent_engines` (no row, or null).
 */
export const OTHER_ENGINES_SQL = `SELECT min(s."day")::VARCHAR AS first, max(s."day")::VARCHAR AS last, count(*)::INTEGER AS days,
    any_value(array_to_string(list_sort(coalesce(q.sent_engines, []::VARCHAR[])), ',')) AS sent
  FROM _sync_state s
  LEFT JOIN ${SLICE_QUERIES_TABLE} q ON q.brand_id = s.brand_id AND q.stream = s.stream AND q.slice_key = s.slice_key
 WHERE s.brand_id = $1 AND s.stream = $2 AND s.status = 'complete' AND s."day" IS NOT NULL AND s."day" < CAST($3 AS DATE)
   AND array_to_string(list_sort(coalesce(q.sent_engines, []::VARCHAR[])), ',') <> $4`;

/** Days of a stream read under another engines filter than today's, as OTHER_ENGINES_SQL finds them. */
export interface OtherEnginesDays {
  first: string;
  last: string;
  days: number;
  /** The filter one of them was read with, its ids joined by commas; '' for none. */
  sent: string;
}
