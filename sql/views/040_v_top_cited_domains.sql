-- v_top_cited_domains: the cited domains of each brand with their trend: the last 7 days against the 7 before.
-- "Last 7 days" ends on the brand's latest complete synced day in domain_daily (today, UTC, is partial and left
-- out), so the view is stable between syncs. Week by calendar week: v_domain_citations_wow.
-- Grain: one row per brand_id, domain.
-- Columns:
--   brand_id, domain, is_first_party
--   first_day, last_day        days with details for the domain
--   occurrences                all synced days
--   cited_occurrences          all synced days
--   occurrences_last_7d        the 7 days ending on the brand's latest day
--   occurrences_prev_7d        the 7 days before those
--   trend                      occurrences_last_7d - occurrences_prev_7d
--   trend_ratio                trend / occurrences_prev_7d (NULL when the previous week had none)
--   rank_last_7d               1 = most occurrences in the last 7 days
-- Source: domain_daily (domain details fetched day by day: tracked URLs' and competitors' domains, the config's list).
CREATE OR REPLACE VIEW v_top_cited_domains AS
WITH complete AS (
  SELECT * FROM domain_daily WHERE "day" < CAST(now() AT TIME ZONE 'UTC' AS DATE)
),
latest AS (
  SELECT brand_id, max("day") AS latest_day FROM complete GROUP BY brand_id
),
per_domain AS (
  SELECT
    d.brand_id,
    d.domain,
    bool_or(d.is_first_party) AS is_first_party,
    min(d."day") AS first_day,
    max(d."day") AS last_day,
    sum(d.occurrences) AS occurrences,
    sum(d.cited_occurrences) AS cited_occurrences,
    coalesce(sum(d.occurrences) FILTER (WHERE d."day" > l.latest_day - 7), 0) AS occurrences_last_7d,
    coalesce(sum(d.occurrences) FILTER (WHERE d."day" <= l.latest_day - 7 AND d."day" > l.latest_day - 14), 0) AS occurrences_prev_7d
  FROM complete AS d
  JOIN latest AS l ON l.brand_id = d.brand_id
  GROUP BY d.brand_id, d.domain
)
SELECT
  *,
  occurrences_last_7d - occurrences_prev_7d AS trend,
  (occurrences_last_7d - occurrences_prev_7d) / nullif(occurrences_prev_7d, 0) AS trend_ratio,
  rank() OVER (PARTITION BY brand_id ORDER BY occurrences_last_7d DESC) AS rank_last_7d
FROM per_domain;
