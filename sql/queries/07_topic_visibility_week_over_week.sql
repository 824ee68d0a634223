-- Question: which topics lost visibility in the latest week, and which gained it? Losers first, then gainers.
-- Parameters (bvsync sql --param NAME=VALUE; in DuckDB's own CLI: SET VARIABLE NAME = VALUE):
--   brand   one brand id; default every brand
-- Columns: brand_id, direction (lost or gained), week_start, topic_name, days (complete days of the week),
--   visibility, previous_visibility, change (in points of the 0-1 scale; v_topic_visibility_wow).
-- Run: npx bvsync sql --file sql/queries/07_topic_visibility_week_over_week.sql --param brand=1
WITH latest AS (
  SELECT brand_id, max(week_start) AS week_start FROM v_topic_visibility_wow GROUP BY brand_id
)
SELECT w.brand_id, CASE WHEN w.change < 0 THEN 'lost' ELSE 'gained' END AS direction, w.week_start,
       coalesce(w.topic_name, 'topic ' || w.topic_id) AS topic_name, w.days,
       round(w.visibility, 4) AS visibility, round(w.previous_visibility, 4) AS previous_visibility, round(w.change, 4) AS change
FROM v_topic_visibility_wow AS w
JOIN latest USING (brand_id, week_start)
WHERE w.change <> 0 AND (getvariable('brand') IS NULL OR w.brand_id = getvariable('brand'))
ORDER BY w.brand_id, direction DESC, abs(w.change) DESC, topic_name;
