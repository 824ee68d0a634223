-- v_topic_visibility_wow: the own brand's visibility per topic, each week against the week before (weeks start
-- Monday), over complete days only (today, UTC, is partial and left out). "Which topics lost visibility this week?"
-- is one SELECT: WHERE week_start = (SELECT max(week_start) FROM v_topic_visibility_wow) ORDER BY change.
-- Grain: one row per brand_id, week_start, topic_id.
-- Columns:
--   brand_id, week_start, topic_id, topic_name
--   days, previous_days                   complete days with data in the week and in the week before
--   conversations, mentioned_conversations, visibility         the week's, from v_visibility_topic_weekly
--   previous_visibility                   the week before's (NULL when that week has no data)
--   change                                visibility - previous_visibility, in points of the 0-1 scale
-- Source: v_visibility_topic_weekly.
CREATE OR REPLACE VIEW v_topic_visibility_wow AS
SELECT
  w.brand_id,
  w.week_start,
  w.topic_id,
  w.topic_name,
  w.days,
  p.days AS previous_days,
  w.conversations,
  w.mentioned_conversations,
  w.visibility,
  p.visibility AS previous_visibility,
  w.visibility - p.visibility AS change
FROM v_visibility_topic_weekly AS w
LEFT JOIN v_visibility_topic_weekly AS p
  ON p.brand_id = w.brand_id AND p.topic_id = w.topic_id AND p.week_start = w.week_start - 7;
