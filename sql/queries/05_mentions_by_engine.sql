-- Question: how often does each answer engine mention and recommend the brand, per week?
-- Parameters (bvsync sql --param NAME=VALUE; in DuckDB's own CLI: SET VARIABLE NAME = VALUE):
--   brand   one brand id; default every brand
-- Columns: brand_id, week_start, model, answers, mention_rate, recommendation_rate, average_position (when mentioned).
-- Run: npx bvsync sql --file sql/queries/05_mentions_by_engine.sql --param brand=1
SELECT
  brand_id,
  CAST(date_trunc('week', "day") AS DATE) AS week_start,
  model,
  count(*) AS answers,
  avg(CAST(mentioned AS INTEGER)) AS mention_rate,
  avg(CAST(coalesce(recommended, false) AS INTEGER)) AS recommendation_rate,
  avg("position") FILTER (WHERE mentioned) AS average_position
FROM conversations
WHERE getvariable('brand') IS NULL OR brand_id = getvariable('brand')
GROUP BY ALL
ORDER BY brand_id, week_start DESC, answers DESC, model;
