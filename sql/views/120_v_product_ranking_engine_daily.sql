-- v_product_ranking_engine_daily: the product ranking per day and engine (stream product_ranking_by_engine, asked
-- with engines=[engine]) beside the product's rank over the brand's engines together (product_ranking_daily).
-- Grain: one row per brand_id, day, engine, metric, subject, product_id.
-- Columns:
--   brand_id, day, engine, metric (visibility | recommendation), subject (brand | competitor), product_id, title, label
--   rank                the product's rank in that engine's answers
--   rank_all_engines    its rank over the brand's engines together that day (NULL when unranked or not synced)
--   visibility, recommendation, ci_lower, ci_upper   as the API reported them for that day and engine
CREATE OR REPLACE VIEW v_product_ranking_engine_daily AS
SELECT
  e.brand_id,
  e."day",
  e.engine,
  e.metric,
  e.subject,
  e.product_id,
  e.title,
  e.label,
  e."rank",
  a."rank" AS rank_all_engines,
  e.visibility,
  e.recommendation,
  e.ci_lower,
  e.ci_upper
FROM product_ranking_engine_daily AS e
LEFT JOIN product_ranking_daily AS a
  ON a.brand_id = e.brand_id AND a."day" = e."day" AND a.metric = e.metric AND a.subject = e.subject AND a.product_id = e.product_id;
