-- v_domain_citations_wow: how often each cited domain was cited, each week against the week before (weeks start
-- Monday), complete days only. "Which cited domains grew?" is one SELECT:
-- WHERE week_start = (SELECT max(week_start) FROM v_domain_citations_wow) AND change > 0 ORDER BY change DESC.
-- Grain: one row per brand_id, week_start, domain.
-- Columns:
--   brand_id, week_start, domain, is_first_party
--   days                   complete days of the week with details for the domain
--   occurrences            the week's occurrences (domain_daily.occurrences)
--   previous_occurrences   the week before's (0 when the domain had a detail that week with none, NULL when no detail)
--   change                 occurrences - previous_occurrences
--   change_ratio           change / previous_occurrences (NULL when the week before had none)
-- Source: domain_daily.
CREATE OR REPLACE VIEW v_domain_citations_wow AS
WITH weekly AS (
  SELECT brand_id, CAST(date_trunc('week', "day") AS DATE) AS week_start, domain,
         bool_or(is_first_party) AS is_first_party, count(*) AS days, coalesce(sum(occurrences), 0) AS occurrences
  FROM domain_daily
  WHERE "day" < CAST(now() AT TIME ZONE 'UTC' AS DATE)
  GROUP BY ALL
)
SELECT
  w.brand_id,
  w.week_start,
  w.domain,
  w.is_first_party,
  w.days,
  w.occurrences,
  p.occurrences AS previous_occurrences,
  w.occurrences - p.occurrences AS change,
  (w.occurrences - p.occurrences) / nullif(p.occurrences, 0) AS change_ratio
FROM weekly AS w
LEFT JOIN weekly AS p ON p.brand_id = w.brand_id AND p.domain = w.domain AND p.week_start = w.week_start - 7;
