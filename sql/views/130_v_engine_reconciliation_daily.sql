-- v_engine_reconciliation_daily: the warehouse checks itself per brand, day and engine: the answers the per-engine
-- visibility rows count (summed over topics) against that engine's answers in the conversations table, and the
-- answers mentioning the brand on both sides. They agree when both were synced from the same state of the API; a
-- disagreement names the day and engine to sync again (answers arrive late: see docs/syncing.md).
-- Grain: one row per brand_id, day, engine seen on either side.
-- Columns:
--   brand_id, day, engine
--   broken_down                 a visibility_by_engine slice of that day and engine is loaded
--   conversations_synced        a conversations slice of that day is loaded
--   visibility_answers          sum of conversations of the engine's topic rows (0 when broken down with no rows)
--   conversations               that engine's answers of the day in the conversations table
--   visibility_mentioned        sum of mentioned_conversations of the engine's topic rows
--   mentioned_conversations     that engine's answers of the day that mention the brand
--   agrees                      both counts equal on both sides; NULL when either side was not synced
CREATE OR REPLACE VIEW v_engine_reconciliation_daily AS
WITH broken_down AS (
  SELECT DISTINCT brand_id, "day", engines[1] AS engine
  FROM _slice_queries
  WHERE stream = 'visibility_by_engine' AND len(engines) = 1
),
by_engine AS (
  SELECT brand_id, "day", engine, sum(conversations) AS answers, sum(mentioned_conversations) AS mentioned
  FROM visibility_topic_engine_daily
  GROUP BY ALL
),
answers AS (
  SELECT brand_id, "day", model AS engine, count(*) AS answers, count(*) FILTER (WHERE mentioned) AS mentioned
  FROM conversations
  WHERE model IS NOT NULL
  GROUP BY ALL
),
conversation_days AS (
  SELECT DISTINCT brand_id, "day" FROM _sync_state WHERE stream = 'conversations' AND "day" IS NOT NULL AND status <> 'failed'
),
keys AS (
  SELECT brand_id, "day", engine FROM broken_down
  UNION SELECT brand_id, "day", engine FROM by_engine
  UNION SELECT brand_id, "day", engine FROM answers
)
SELECT
  k.brand_id,
  k."day",
  k.engine,
  b.engine IS NOT NULL AS broken_down,
  c."day" IS NOT NULL AS conversations_synced,
  CASE WHEN b.engine IS NOT NULL THEN coalesce(v.answers, 0) END AS visibility_answers,
  CASE WHEN c."day" IS NOT NULL THEN coalesce(a.answers, 0) END AS conversations,
  CASE WHEN b.engine IS NOT NULL THEN coalesce(v.mentioned, 0) END AS visibility_mentioned,
  CASE WHEN c."day" IS NOT NULL THEN coalesce(a.mentioned, 0) END AS mentioned_conversations,
  CASE
    WHEN b.engine IS NULL OR c."day" IS NULL THEN NULL
    ELSE coalesce(v.answers, 0) = coalesce(a.answers, 0) AND coalesce(v.mentioned, 0) = coalesce(a.mentioned, 0)
  END AS agrees
FROM keys AS k
LEFT JOIN broken_down AS b USING (brand_id, "day", engine)
LEFT JOIN by_engine AS v USING (brand_id, "day", engine)
LEFT JOIN answers AS a USING (brand_id, "day", engine)
LEFT JOIN conversation_days AS c ON c.brand_id = k.brand_id AND c."day" = k."day";
