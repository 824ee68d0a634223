-- v_fanouts_cited_one_window: the searches that led answers to each cited domain or page, for ONE requested window
-- per brand and target, the newest one synced. fanouts_cited keeps every window a run asked for, and their
-- conversations and relevance are of the whole window (they cannot be split into days), so summing rows of
-- overlapping windows counts answers twice.
-- Grain: one row per brand_id, target_kind, target, id (a search).
-- Columns:
--   brand_id, target_kind (domain | url), target, window_start, window_end (the window covered, both days included)
--   id, query, conversations, relevance   as the API reported them for that window
-- Source: fanouts_cited (spec endpoint 15).
CREATE OR REPLACE VIEW v_fanouts_cited_one_window AS
WITH newest AS (
  SELECT brand_id, target_kind, target,
         arg_max(window_start, (_synced_at, window_end)) AS window_start, arg_max(window_end, (_synced_at, window_end)) AS window_end
  FROM fanouts_cited
  GROUP BY brand_id, target_kind, target
)
SELECT f.brand_id, f.target_kind, f.target, f.window_start, f.window_end, f.id, f.query, f.conversations, f.relevance
FROM fanouts_cited AS f
JOIN newest AS n
  ON n.brand_id = f.brand_id AND n.target_kind = f.target_kind AND n.target = f.target
 AND n.window_start = f.window_start AND n.window_end = f.window_end;
