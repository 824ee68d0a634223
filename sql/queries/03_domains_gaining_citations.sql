-- Question: which cited domains gained citations in the latest week, and which lost them? Gainers first, then losers.
-- Parameters (bvsync sql --param NAME=VALUE; in DuckDB's own CLI: SET VARIABLE NAME = VALUE):
--   brand   one brand id; default every brand
--   top     how many domains per brand and direction; default 10
-- Columns: brand_id, direction (gained or lost), week_start, domain, is_first_party, occurrences,
--   previous_occurrences, change, change_ratio (v_domain_citations_wow: complete days, weeks start Monday).
-- Run: npx bvsync sql --file sql/queries/03_domains_gaining_citations.sql --param brand=1 --param top=5
WITH latest AS (
  SELECT brand_id, max(week_start) AS week_start FROM v_domain_citations_wow GROUP BY brand_id
)
SELECT w.brand_id, CASE WHEN w.change > 0 THEN 'gained' ELSE 'lost' END AS direction, w.week_start, w.domain,
       w.is_first_party, w.occurrences, w.previous_occurrences, w.change, round(w.change_ratio, 3) AS change_ratio
FROM v_domain_citations_wow AS w
JOIN latest USING (brand_id, week_start)
WHERE w.change <> 0 AND (getvariable('brand') IS NULL OR w.brand_id = getvariable('brand'))
QUALIFY row_number() OVER (PARTITION BY w.brand_id, w.change > 0 ORDER BY abs(w.change) DESC, w.domain) <= coalesce(getvariable('top'), 10)
ORDER BY w.brand_id, direction, abs(w.change) DESC, w.domain;
