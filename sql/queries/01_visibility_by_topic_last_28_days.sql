-- Question: how visible was each brand in each topic over the last 28 days, against the 28 days before?
-- Parameters (bvsync sql --param NAME=VALUE; in DuckDB's own CLI: SET VARIABLE NAME = VALUE):
--   brand   one brand id; default every brand
--   days    the window length in days, ending on each brand's latest synced day; default 28
-- Columns: brand_id, topic_name, conversations, visibility (exact: sum of numerators / sum of answers),
--   previous_visibility (the window before), change.
-- Run: npx bvsync sql --file sql/queries/01_visibility_by_topic_last_28_days.sql --param brand=1
WITH bounds AS (
  SELECT brand_id, max("day") AS last_day, CAST(coalesce(getvariable('days'), 28) AS INTEGER) AS days
  FROM visibility_topic_daily
  WHERE getvariable('brand') IS NULL OR brand_id = getvariable('brand')
  GROUP BY brand_id
),
windows AS (
  SELECT
    v.brand_id,
    v.topic_name,
    sum(v.conversations) FILTER (WHERE v."day" > b.last_day - b.days) AS conversations,
    sum(v.mentioned_conversations) FILTER (WHERE v."day" > b.last_day - b.days) AS mentioned,
    sum(v.conversations) FILTER (WHERE v."day" <= b.last_day - b.days) AS previous_conversations,
    sum(v.mentioned_conversations) FILTER (WHERE v."day" <= b.last_day - b.days) AS previous_mentioned
  FROM v_visibility_topic_daily AS v JOIN bounds AS b USING (brand_id)
  WHERE v."day" > b.last_day - 2 * b.days
  GROUP BY v.brand_id, v.topic_name
)
SELECT
  brand_id,
  topic_name,
  conversations,
  mentioned / nullif(conversations, 0) AS visibility,
  previous_mentioned / nullif(previous_conversations, 0) AS previous_visibility,
  mentioned / nullif(conversations, 0) - previous_mentioned / nullif(previous_conversations, 0) AS change
FROM windows
ORDER BY brand_id, visibility DESC NULLS LAST, topic_name;
