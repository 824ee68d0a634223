-- Question: week by week, what share of the brand mentions goes to the brand and to each competitor?
-- Parameters (bvsync sql --param NAME=VALUE; in DuckDB's own CLI: SET VARIABLE NAME = VALUE):
--   brand   one brand id; default every brand
-- Columns: brand_id, week_start, brand_name, is_own_brand, mentioned_conversations,
--   share_of_voice (of the mentions of the brands the report lists, that week).
-- Run: npx bvsync sql --file sql/queries/02_share_of_voice_weekly.sql --param brand=1
SELECT
  brand_id,
  CAST(date_trunc('week', "day") AS DATE) AS week_start,
  brand_name,
  bool_or(is_own_brand) AS is_own_brand,
  sum(mentioned_conversations) AS mentioned_conversations,
  sum(mentioned_conversations) / sum(sum(mentioned_conversations)) OVER (PARTITION BY brand_id, week_start) AS share_of_voice
FROM v_share_of_voice_daily
WHERE getvariable('brand') IS NULL OR brand_id = getvariable('brand')
GROUP BY brand_id, week_start, brand_name
ORDER BY brand_id, week_start DESC, share_of_voice DESC, brand_name;
