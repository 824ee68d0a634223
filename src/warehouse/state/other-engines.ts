import { SLICE_QUERIES_TABLE } from '../provenance.js';

/**
 * Per brand and stream, in one scan, the complete days before a day read under another engines filter than $2 (the
 * sorted ids joined by commas, '' for none), as first, last and count; $1 a JSON list of [brand, stream, the day].
 */
export const OTHER_ENGINES_SQL = `WITH asked AS (
    SELECT CAST(a->>0 AS BIGINT) AS brand_id, a->>1 AS stream, CAST(a->>2 AS DATE) AS before
      FROM (SELECT unnest(CAST(CAST($1 AS JSON) AS JSON[])) AS a))
  SELECT s.brand_id, s.stream, min(s."day")::VARCHAR AS first, max(s."day")::VARCHAR AS last, count(*)::INTEGER AS days,
    any_value(array_to_string(list_sort(coalesce(q.sent_engines, []::VARCHAR[])), ',')) AS sent
  FROM _sync_state s
  JOIN asked a ON a.brand_id = s.brand_id AND a.stream = s.stream
  LEFT JOIN ${SLICE_QUERIES_TABLE} q ON q.brand_id = s.brand_id AND q.stream = s.stream AND q.slice_key = s.slice_key
 WHERE s.stream IN (SELECT stream FROM asked) AND s.status = 'complete' AND s."day" IS NOT NULL AND s."day" < a.before
   AND array_to_string(list_sort(coalesce(q.sent_engines, []::VARCHAR[])), ',') <> $2
 GROUP BY s.brand_id, s.stream`;

/** Days of a stream read under another engines filter than today's, as OTHER_ENGINES_SQL finds them. */
export interface OtherEnginesDays {
  first: string;
  last: string;
  days: number;
  /** The filter one of them was read with, its ids joined by commas; '' for none. */
  sent: string;
}
