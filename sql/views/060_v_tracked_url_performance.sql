-- v_tracked_url_performance: how often each tracked page is cited, over every synced day.
-- Grain: one row per brand_id, tracked_url_id (pages untracked since keep their history, with url NULL if unknown).
-- Columns:
--   brand_id, tracked_url_id, url, title, group_name
--   days            days with a synced count for the page
--   first_day, last_day
--   citations       answers that cite the page (sum over days)
--   conversations   answers the counts read (sum over days)
--   citation_rate   citations / conversations (exact over the whole history)
--   first_cited     earliest first_cited timestamp the API reported
--   last_cited_day  latest day with at least one citation
-- Source: tracked_url_daily (the tracked URLs report fetched one day at a time) and tracked_urls.
CREATE OR REPLACE VIEW v_tracked_url_performance AS
WITH per_url AS (
  SELECT
    brand_id,
    tracked_url_id,
    count(*) AS days,
    min("day") AS first_day,
    max("day") AS last_day,
    sum(citations) AS citations,
    sum(conversations) AS conversations,
    min(first_cited) AS first_cited,
    max("day") FILTER (WHERE citations > 0) AS last_cited_day
  FROM tracked_url_daily
  GROUP BY brand_id, tracked_url_id
)
SELECT
  coalesce(u.brand_id, p.brand_id) AS brand_id,
  coalesce(u.id, p.tracked_url_id) AS tracked_url_id,
  u.url,
  u.title,
  u.group_name,
  coalesce(p.days, 0) AS days,
  p.first_day,
  p.last_day,
  coalesce(p.citations, 0) AS citations,
  coalesce(p.conversations, 0) AS conversations,
  p.citations / nullif(p.conversations, 0) AS citation_rate,
  p.first_cited,
  p.last_cited_day
FROM tracked_urls AS u
FULL OUTER JOIN per_url AS p ON p.brand_id = u.brand_id AND p.tracked_url_id = u.id;
