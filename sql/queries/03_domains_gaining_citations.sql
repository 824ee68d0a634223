-- Question: which cited domains gained or lost the most in the last 7 days, and are they ours?
-- Parameters: the brand id (7 below).
-- Columns: domain, is_first_party, occurrences_last_7d, occurrences_prev_7d, trend, trend_ratio.
SELECT domain, is_first_party, occurrences_last_7d, occurrences_prev_7d, trend, round(trend_ratio, 3) AS trend_ratio
FROM v_top_cited_domains
WHERE brand_id = 7
ORDER BY abs(trend) DESC
LIMIT 20;
