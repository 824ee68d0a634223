-- Question: which products fell in the ranking on each brand's latest synced day, and by how much?
-- Parameters (bvsync sql --param NAME=VALUE; in DuckDB's own CLI: SET VARIABLE NAME = VALUE):
--   brand     one brand id; default every brand
--   metric    visibility or recommendation; default visibility
--   subject   brand (the brand's own products) or competitor; default brand
-- Columns: brand_id, day, product_id, title, previous_rank, rank, rank_change (negative = fell), visibility_change.
-- Run: npx bvsync sql --file sql/queries/04_products_that_dropped.sql --param brand=1 --param subject=competitor
SELECT c.brand_id, c."day", c.product_id, c.title, c.previous_rank, c."rank", c.rank_change, c.visibility_change
FROM v_product_rank_changes AS c
WHERE (getvariable('brand') IS NULL OR c.brand_id = getvariable('brand'))
  AND c.metric = coalesce(getvariable('metric'), 'visibility')
  AND c.subject = coalesce(getvariable('subject'), 'brand')
  AND c.movement = 'down'
  AND c."day" = (SELECT max(p."day") FROM product_ranking_daily AS p WHERE p.brand_id = c.brand_id)
ORDER BY c.brand_id, c.rank_change, c.product_id;
