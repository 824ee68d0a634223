-- Question: which of our products fell in the visibility ranking on the latest day, and by how much?
-- Parameters: the brand id (7 below); metric 'visibility' or 'recommendation'; subject 'brand' or 'competitor'.
-- Columns: day, product_id, title, previous_rank, rank, rank_change (negative = fell), visibility_change.
SELECT "day", product_id, title, previous_rank, "rank", rank_change, visibility_change
FROM v_product_rank_changes
WHERE brand_id = 7 AND metric = 'visibility' AND subject = 'brand' AND movement = 'down'
  AND "day" = (SELECT max("day") FROM product_ranking_daily WHERE brand_id = 7)
ORDER BY rank_change;
