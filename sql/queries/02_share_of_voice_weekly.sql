-- Question: week by week, what share of the brand mentions goes to the brand and to each competitor?
-- Parameters (bvsync sql --param NAME=VALUE; in DuckDB's own CLI: SET VARIABLE NAME = VALUE):
--   brand   one brand id; default every brand
-- Columns: brand_id, week_start, brand_name, brand_kind (own, tracked competitor, suggested competitor, other brand),
--   days (complete days), mentions, all_brand_mentions (every brand's mentions that week), share_of_voice
--   (mentions / all_brand_mentions: v_share_of_voice_daily's definition), change (against the week before).
-- Run: npx bvsync sql --file sql/queries/02_share_of_voice_weekly.sql --param brand=1
SELECT brand_id, week_start, brand_name, brand_kind, days, mentions, all_brand_mentions,
       round(share_of_voice, 4) AS share_of_voice, round(change, 4) AS change
FROM v_share_of_voice_wow
WHERE getvariable('brand') IS NULL OR brand_id = getvariable('brand')
ORDER BY brand_id, week_start DESC, share_of_voice DESC, brand_name;
