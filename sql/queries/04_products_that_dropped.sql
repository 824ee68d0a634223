-- Question: which products fell in the ranking over each brand's last synced days, and by how much?
-- Parameters (bvsync sql --param NAME=VALUE; in DuckDB's own CLI: SET VARIABLE NAME = VALUE):
--   brand     one brand id; default every brand
--   days      how many days, ending on the brand's latest synced day; default 1 (that day alone)
--   metric    visibility or recommendation; default visibility
--   subject   brand (the brand's own products) or competitor; default brand
-- Columns: brand_id, day, product_id, title, previous_rank, rank, rank_change (negative = fell), visibility_change.
-- Run: npx bvsync sql --file sql/queries/04_products_that_dropped.sql --param brand=1 --param days=7
WITH latest AS (
  SELECT brand_id, max("day") AS last_day FROM product_ranking_daily GROUP BY brand_id
)
SELECT c.brand_id, c."day", c.product_id, c.title, c.previous_rank, c."rank", c.rank_change, c.visibility_change
FROM v_product_rank_changes AS c JOIN latest AS l USING (brand_id)
WHERE (getvariable('brand') IS NULL OR c.brand_id = getvariable('brand'))
  AND c.metric = coalesce(getvariable('metric'), 'visibility')
  AND c.subject = coalesce(getvariable('subject'), 'brand')
  AND c.movement = 'down'
  AND c."day" > l.last_day - CAST(coalesce(getvariable('days'), 1) AS INTEGER)
ORDER BY c.brand_id, c."day" DESC, c.rank_change, c.product_id;
