-- v_visibility_topic_weekly: the own brand's visibility per topic and week (weeks start Monday), aggregated
-- exactly from the daily numerators, complete days only: today (UTC) is partial and left out.
-- Grain: one row per brand_id, week_start, topic_id.
-- Columns: brand_id, week_start, topic_id, topic_name, days (complete days with data), conversations,
--   mentioned_conversations, visibility (= mentioned_conversations / conversations over the week).
-- Week over week: v_topic_visibility_wow.
CREATE OR REPLACE VIEW v_visibility_topic_weekly AS
SELECT
  v.brand_id,
  CAST(date_trunc('week', v."day") AS DATE) AS week_start,
  v.topic_id,
  any_value(t.name) AS topic_name,
  count(*) AS days,
  sum(v.conversations) AS conversations,
  sum(v.mentioned_conversations) AS mentioned_conversations,
  sum(v.mentioned_conversations) / nullif(sum(v.conversations), 0) AS visibility
FROM visibility_topic_daily AS v
LEFT JOIN topics AS t ON t.brand_id = v.brand_id AND t.id = v.topic_id
WHERE v."day" < CAST(now() AT TIME ZONE 'UTC' AS DATE)
GROUP BY v.brand_id, week_start, v.topic_id;
