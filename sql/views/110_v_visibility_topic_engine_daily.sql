-- v_visibility_topic_engine_daily: the own brand's visibility per topic, day and engine: the visibility report asked
-- with engines=[engine] (stream visibility_by_engine), so each number covers that one engine.
-- Grain: one row per brand_id, day, engine, topic_id (a topic with no answers of that engine that day has no row).
-- Columns:
--   brand_id, day, engine, topic_id, topic_name
--   conversations            answers of that engine, day and topic
--   mentioned_conversations  those that mention the brand (round(visibility x conversations))
--   visibility               mentioned_conversations / conversations
--   change_vs_previous_day   the API's change of the one-day request: against the day before, not a window's
--   ci_lower, ci_upper, share_of_voice   as the API reported them for that day and engine
-- Any window is exact with sum(mentioned_conversations) / sum(conversations).
CREATE OR REPLACE VIEW v_visibility_topic_engine_daily AS
SELECT
  v.brand_id,
  v."day",
  v.engine,
  v.topic_id,
  t.name AS topic_name,
  v.conversations,
  v.mentioned_conversations,
  v.mentioned_conversations / nullif(v.conversations, 0) AS visibility,
  v.change_vs_previous_day,
  v.ci_lower,
  v.ci_upper,
  v.share_of_voice
FROM visibility_topic_engine_daily AS v
LEFT JOIN topics AS t ON t.brand_id = v.brand_id AND t.id = v.topic_id;
