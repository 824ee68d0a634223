-- Question: how visible was the brand in each topic over the last 28 days, against the 28 days before?
-- Parameters: the brand id (7 below) and the window length (28 days, ending on the latest synced day).
-- Columns: topic_name, conversations, visibility (exact: sum of numerators / sum of answers), previous_visibility, change.
WITH bounds AS (
  SELECT max("day") AS last_day FROM visibility_topic_daily WHERE brand_id = 7
),
windows AS (
  SELECT
    v.topic_name,
    sum(v.conversations) FILTER (WHERE v."day" > b.last_day - 28) AS conversations,
    sum(v.mentioned_conversations) FILTER (WHERE v."day" > b.last_day - 28) AS mentioned,
    sum(v.conversations) FILTER (WHERE v."day" <= b.last_day - 28) AS previous_conversations,
    sum(v.mentioned_conversations) FILTER (WHERE v."day" <= b.last_day - 28) AS previous_mentioned
  FROM v_visibility_topic_daily AS v, bounds AS b
  WHERE v.brand_id = 7 AND v."day" > b.last_day - 56
  GROUP BY v.topic_name
)
SELECT
  topic_name,
  conversations,
  mentioned / nullif(conversations, 0) AS visibility,
  previous_mentioned / nullif(previous_conversations, 0) AS previous_visibility,
  mentioned / nullif(conversations, 0) - previous_mentioned / nullif(previous_conversations, 0) AS change
FROM windows
ORDER BY visibility DESC NULLS LAST;
