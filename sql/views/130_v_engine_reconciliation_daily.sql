-- v_engine_reconciliation_daily: the warehouse checks itself per brand, day and engine: the answers the per-engine
-- visibility rows count (summed over topics) against that engine's answers in the conversations table, and the
-- answers mentioning the brand on both sides. They agree when both were synced from the same state of the API; a
-- disagreement names the day and engine to sync again (answers arrive late: see docs/syncing.md).
-- Grain: one row per brand_id, day, engine seen on either side, engines compared ignoring letter case: the API may
-- spell one engine in another case in conversations' model than in the visibility echo ("Chatgpt", "chatgpt"), as
-- the spec omits the literal ids; the loader compares them the same way (engine_not_applied).
-- Columns:
--   brand_id, day
--   engine                      as the visibility side spells it (the per-engine tables' engine, the id the slice
--                               asked for, so it joins those tables exactly), else as conversations.model does
--   broken_down                 a visibility_by_engine slice of that day and engine is loaded
--   conversations_synced        a conversations slice of that day is loaded
--   visibility_answers          sum of conversations of the engine's topic rows (0 when broken down with no rows)
--   conversations               that engine's answers of the day in the conversations table
--   visibility_mentioned        sum of mentioned_conversations of the engine's topic rows
--   mentioned_conversations     that engine's answers of the day that mention the brand
--   agrees                      both counts equal on both sides; NULL when either side was not synced
CREATE OR REPLACE VIEW v_engine_reconciliation_daily AS
-- Each side is keyed by lower(engine) and keeps one spelling of its own (min: any one spelling, the same each time).
WITH broken_down AS (
  -- An echo that repeats its one engine, in any case, is still that engine alone (as engine_not_applied reads it).
  SELECT brand_id, "day", lower(engines[1]) AS engine_key, min(coalesce(sent_engines[1], engines[1])) AS engine
  FROM _slice_queries
  WHERE stream = 'visibility_by_engine' AND len(list_distinct([lower(e) FOR e IN engines])) = 1
  GROUP BY ALL
),
by_engine AS (
  SELECT brand_id, "day", lower(engine) AS engine_key, min(engine) AS engine,
         sum(conversations) AS answers, sum(mentioned_conversations) AS mentioned
  FROM visibility_topic_engine_daily
  GROUP BY brand_id, "day", engine_key
),
answers AS (
  SELECT brand_id, "day", lower(model) AS engine_key, min(model) AS engine,
         count(*) AS answers, count(*) FILTER (WHERE mentioned) AS mentioned
  FROM conversations
  WHERE model IS NOT NULL
  GROUP BY brand_id, "day", engine_key
),
conversation_days AS (
  SELECT DISTINCT brand_id, "day" FROM _sync_state WHERE stream = 'conversations' AND "day" IS NOT NULL AND status <> 'failed'
),
keys AS (
  SELECT brand_id, "day", engine_key FROM broken_down
  UNION SELECT brand_id, "day", engine_key FROM by_engine
  UNION SELECT brand_id, "day", engine_key FROM answers
)
SELECT
  k.brand_id,
  k."day",
  coalesce(v.engine, b.engine, a.engine) AS engine,
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
LEFT JOIN broken_down AS b USING (brand_id, "day", engine_key)
LEFT JOIN by_engine AS v USING (brand_id, "day", engine_key)
LEFT JOIN answers AS a USING (brand_id, "day", engine_key)
LEFT JOIN conversation_days AS c ON c.brand_id = k.brand_id AND c."day" = k."day";
