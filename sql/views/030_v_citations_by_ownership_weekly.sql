-- v_citations_by_ownership_weekly: citations per ownership class of the cited page, per week (weeks start Monday).
-- Grain: one row per brand_id, week_start, ownership.
-- Columns:
--   brand_id, week_start, ownership (first_party, competitor_owned, third_party_editorial, ... as the API sends)
--   days         days of the week with a synced series for that ownership
--   occurrences  citations that week (sum of the daily series)
--   share        occurrences / all ownership classes' occurrences that week
-- Source: citation_daily rows with dimension = 'ownership' (one series per ownership value, period=day).
CREATE OR REPLACE VIEW v_citations_by_ownership_weekly AS
WITH weekly AS (
  SELECT
    brand_id,
    CAST(date_trunc('week', "day") AS DATE) AS week_start,
    "value" AS ownership,
    count(*) AS days,
    sum(occurrences) AS occurrences
  FROM citation_daily
  WHERE dimension = 'ownership'
  GROUP BY brand_id, week_start, ownership
)
SELECT
  brand_id,
  week_start,
  ownership,
  days,
  occurrences,
  occurrences / nullif(sum(occurrences) OVER (PARTITION BY brand_id, week_start), 0) AS share
FROM weekly;
