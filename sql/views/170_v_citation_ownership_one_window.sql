-- v_citation_ownership_one_window: the citations report's summary by ownership for ONE requested window per brand,
-- the newest one synced, so its occurrences can be summed without counting a day twice. The table
-- citation_ownership_summary keeps every window a run asked for (a backfill's, then each sync's), and those overlap.
-- Grain: one row per brand_id, ownership.
-- Columns:
--   brand_id, window_start, window_end   the window these numbers cover (both days included)
--   ownership, label                     as the API sent them
--   occurrences, share                   of that window, as the API reported them
-- For any other window, sum citation_daily's ownership series (v_citations_by_ownership_weekly does, per week).
-- Source: citation_ownership_summary (spec endpoint 17, info.summary.by_ownership).
CREATE OR REPLACE VIEW v_citation_ownership_one_window AS
WITH newest AS (
  SELECT brand_id, arg_max(window_start, (_synced_at, window_end)) AS window_start, arg_max(window_end, (_synced_at, window_end)) AS window_end
  FROM citation_ownership_summary
  GROUP BY brand_id
)
SELECT s.brand_id, s.window_start, s.window_end, s.ownership, s.label, s.occurrences, s.share
FROM citation_ownership_summary AS s
JOIN newest AS n ON n.brand_id = s.brand_id AND n.window_start = s.window_start AND n.window_end = s.window_end;
