-- Question: which competitors gained share of voice in the latest week, and which lost it? Gainers first.
-- Parameters (bvsync sql --param NAME=VALUE; in DuckDB's own CLI: SET VARIABLE NAME = VALUE):
--   brand   one brand id; default every brand
-- Columns: brand_id, direction (gained or lost), week_start, brand_name, brand_kind, share_of_voice,
--   previous_share_of_voice, change (in points of the 0-1 scale; v_share_of_voice_wow).
-- Run: npx bvsync sql --file sql/queries/08_share_of_voice_movers.sql --param brand=1
WITH latest AS (
  SELECT brand_id, max(week_start) AS week_start FROM v_share_of_voice_wow GROUP BY brand_id
)
SELECT w.brand_id, CASE WHEN w.change > 0 THEN 'gained' ELSE 'lost' END AS direction, w.week_start, w.brand_name,
       w.brand_kind, round(w.share_of_voice, 4) AS share_of_voice, round(w.previous_share_of_voice, 4) AS previous_share_of_voice,
       round(w.change, 4) AS change
FROM v_share_of_voice_wow AS w
JOIN latest USING (brand_id, week_start)
WHERE NOT w.is_own_brand AND w.change <> 0 AND (getvariable('brand') IS NULL OR w.brand_id = getvariable('brand'))
ORDER BY w.brand_id, direction, abs(w.change) DESC, w.brand_name;
