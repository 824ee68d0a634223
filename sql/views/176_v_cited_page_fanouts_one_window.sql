-- v_cited_page_fanouts_one_window: the searches that led answers to cite each tracked page, for ONE requested window
-- per brand and page, the newest one synced. cited_page_fanouts keeps every window a run asked for, and their
-- conversations and relevance are of the whole window (they cannot be split into days), so summing rows of
-- overlapping windows counts answers twice.
-- Grain: one row per brand_id, url, id (a search).
-- Columns:
--   brand_id, url (the tracked page), window_start, window_end (the window covered, both days included)
--   id, query, conversations, relevance   as the API reported them for that window
-- Source: cited_page_fanouts (spec endpoint 15 asked by url).
CREATE OR REPLACE VIEW v_cited_page_fanouts_one_window AS
WITH newest AS (
  SELECT brand_id, url,
         arg_max(window_start, (_synced_at, window_end)) AS window_start, arg_max(window_end, (_synced_at, window_end)) AS window_end
  FROM cited_page_fanouts
  GROUP BY brand_id, url
)
SELECT f.brand_id, f.url, f.window_start, f.window_end, f.id, f.query, f.conversations, f.relevance
FROM cited_page_fanouts AS f
JOIN newest AS n ON n.brand_id = f.brand_id AND n.url = f.url AND n.window_start = f.window_start AND n.window_end = f.window_end;
