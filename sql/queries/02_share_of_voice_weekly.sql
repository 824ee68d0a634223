-- Question: week by week, what share of the brand mentions goes to the brand and to each competitor?
-- Parameters (bvsync sql --param NAME=VALUE; in DuckDB's own CLI: SET VARIABLE NAME = VALUE):
--   brand   one brand id; default every brand
-- Columns: brand_id, week_start, brand_name, is_own_brand, mentioned_conversations,
--   all_brand_mentions (the denominator: every brand's mentions that week, listed by the report or not),
--   share_of_voice (mentioned_conversations / all_brand_mentions, as the report's own share_of_voice counts).
-- Run: npx bvsync sql --file sql/queries/02_share_of_voice_weekly.sql --param brand=1
WITH daily AS (
  SELECT *, CAST(date_trunc('week', "day") AS DATE) AS week_start FROM v_share_of_voice_daily
  WHERE getvariable('brand') IS NULL OR brand_id = getvariable('brand')
),
weekly_denominator AS (
  SELECT brand_id, week_start, sum(all_brand_mentions) AS all_brand_mentions
  FROM (SELECT DISTINCT brand_id, week_start, "day", all_brand_mentions FROM daily)
  GROUP BY ALL
)
SELECT
  d.brand_id,
  d.week_start,
  d.brand_name,
  bool_or(d.is_own_brand) AS is_own_brand,
  sum(d.mentioned_conversations) AS mentioned_conversations,
  any_value(w.all_brand_mentions) AS all_brand_mentions,
  sum(d.mentioned_conversations) / nullif(any_value(w.all_brand_mentions), 0) AS share_of_voice
FROM daily AS d
JOIN weekly_denominator AS w ON w.brand_id = d.brand_id AND w.week_start = d.week_start
GROUP BY d.brand_id, d.week_start, d.brand_name
ORDER BY d.brand_id, d.week_start DESC, share_of_voice DESC, d.brand_name;
