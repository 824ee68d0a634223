-- v_product_rank_changes: each ranked product's rank against the previous day, per metric and subject.
-- Grain: one row per brand_id, day, metric, subject, product_id.
-- Columns:
--   brand_id, day, metric (visibility | recommendation), subject (brand | competitor), product_id, title, label
--   rank, previous_rank        today's rank and the rank of the day before (NULL when not ranked then)
--   rank_change                previous_rank - rank: positive = moved up
--   movement                   up | down | same | new (not ranked the day before) | no_previous_day (that day not synced)
--   visibility, visibility_change, recommendation, recommendation_change
CREATE OR REPLACE VIEW v_product_rank_changes AS
WITH synced_days AS (
  SELECT DISTINCT brand_id, metric, subject, "day" FROM product_ranking_daily
  UNION
  SELECT brand_id, metric, subject, "day" FROM product_ranking_shopping_daily
)
SELECT
  cur.brand_id,
  cur."day",
  cur.metric,
  cur.subject,
  cur.product_id,
  cur.title,
  cur.label,
  cur."rank",
  prev."rank" AS previous_rank,
  prev."rank" - cur."rank" AS rank_change,
  CASE
    WHEN s."day" IS NULL THEN 'no_previous_day'
    WHEN prev."rank" IS NULL THEN 'new'
    WHEN cur."rank" < prev."rank" THEN 'up'
    WHEN cur."rank" > prev."rank" THEN 'down'
    ELSE 'same'
  END AS movement,
  cur.visibility,
  cur.visibility - prev.visibility AS visibility_change,
  cur.recommendation,
  cur.recommendation - prev.recommendation AS recommendation_change
FROM product_ranking_daily AS cur
LEFT JOIN product_ranking_daily AS prev
  ON prev.brand_id = cur.brand_id AND prev.metric = cur.metric AND prev.subject = cur.subject
 AND prev.product_id = cur.product_id AND prev."day" = cur."day" - 1
LEFT JOIN synced_days AS s
  ON s.brand_id = cur.brand_id AND s.metric = cur.metric AND s.subject = cur.subject AND s."day" = cur."day" - 1;
