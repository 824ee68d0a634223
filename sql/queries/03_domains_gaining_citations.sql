-- Question: which cited domains gained or lost the most in the last 7 days, and are they the brand's own?
-- Parameters (bvsync sql --param NAME=VALUE; in DuckDB's own CLI: SET VARIABLE NAME = VALUE):
--   brand   one brand id; default every brand
--   top     how many domains per brand; default 20
-- Columns: brand_id, domain, is_first_party, occurrences_last_7d, occurrences_prev_7d, trend, trend_ratio.
-- Run: npx bvsync sql --file sql/queries/03_domains_gaining_citations.sql --param brand=1 --param top=5
SELECT brand_id, domain, is_first_party, occurrences_last_7d, occurrences_prev_7d, trend, round(trend_ratio, 3) AS trend_ratio
FROM v_top_cited_domains
WHERE getvariable('brand') IS NULL OR brand_id = getvariable('brand')
QUALIFY row_number() OVER (PARTITION BY brand_id ORDER BY abs(trend) DESC, domain) <= coalesce(getvariable('top'), 20)
ORDER BY brand_id, abs(trend) DESC, domain;
