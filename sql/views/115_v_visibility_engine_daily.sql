-- v_visibility_engine_daily: how visible the own brand is in each engine, per day, over every topic ("how visible
-- are we in each engine?"). Summed from the per-engine topic rows; an answer belongs to one topic, so the sums are
-- the engine's answers of the day.
-- Grain: one row per brand_id, day, engine.
-- Columns:
--   brand_id, day, engine
--   topics                   topics with answers of that engine that day
--   conversations            answers of that engine that day
--   mentioned_conversations  those that mention the brand
--   visibility               mentioned_conversations / conversations
-- A window: sum(mentioned_conversations) / sum(conversations) over its days; never average visibility.
CREATE OR REPLACE VIEW v_visibility_engine_daily AS
SELECT
  brand_id,
  "day",
  engine,
  count(*) AS topics,
  sum(conversations) AS conversations,
  sum(mentioned_conversations) AS mentioned_conversations,
  sum(mentioned_conversations) / nullif(sum(conversations), 0) AS visibility
FROM visibility_topic_engine_daily
GROUP BY brand_id, "day", engine;
