-- Question: how often does each answer engine mention and recommend the brand, per week?
-- Parameters: the brand id (7 below).
-- Columns: week_start, model, answers, mention_rate, recommendation_rate, average_position (when mentioned).
SELECT
  CAST(date_trunc('week', "day") AS DATE) AS week_start,
  model,
  count(*) AS answers,
  avg(CAST(mentioned AS INTEGER)) AS mention_rate,
  avg(CAST(coalesce(recommended, false) AS INTEGER)) AS recommendation_rate,
  avg("position") FILTER (WHERE mentioned) AS average_position
FROM conversations
WHERE brand_id = 7
GROUP BY ALL
ORDER BY week_start DESC, answers DESC;
