-- v_visibility_topic_daily: the own brand's visibility per topic and day (Topics page of the dashboard).
-- Grain: one row per brand_id, day, topic_id.
-- Columns:
--   brand_id, day, topic_id, topic_name
--   conversations            answers of the day for the topic
--   mentioned_conversations  answers that mention the brand (the numerator: round(visibility x conversations))
--   visibility               mentioned_conversations / conversations
--   api_visibility           visibility as the API reported it (equal up to rounding)
--   change_vs_previous_day   the API's `change` of the one-day request the row came from, so against the day before
--                            (the spec says no more of it); not the dashboard's change over a window (compute that from the numerators of two windows, as
--                            sql/queries/01_visibility_by_topic_last_28_days.sql does)
--   ci_lower, ci_upper, share_of_voice   as the API reported them for that day
-- Any window is exact with sum(mentioned_conversations) / sum(conversations); never average visibility.
CREATE OR REPLACE VIEW v_visibility_topic_daily AS
SELECT
  v.brand_id,
  v."day",
  v.topic_id,
  t.name AS topic_name,
  v.conversations,
  v.mentioned_conversations,
  v.mentioned_conversations / nullif(v.conversations, 0) AS visibility,
  v.visibility AS api_visibility,
  v.change AS change_vs_previous_day,
  v.ci_lower,
  v.ci_upper,
  v.share_of_voice
FROM visibility_topic_daily AS v
LEFT JOIN topics AS t ON t.brand_id = v.brand_id AND t.id = v.topic_id;
