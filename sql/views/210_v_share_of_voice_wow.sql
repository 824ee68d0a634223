-- v_share_of_voice_wow: each brand's share of voice (v_share_of_voice_daily's one definition), each week against
-- the week before (weeks start Monday), complete days only. "Which competitor gained share of voice?" is one SELECT:
-- WHERE week_start = (SELECT max(week_start) FROM v_share_of_voice_wow) AND NOT is_own_brand ORDER BY change DESC.
-- Grain: one row per brand_id (the account's brand), week_start, brand_name (a brand the week's answers name).
-- Columns:
--   brand_id, week_start, brand_name, is_own_brand, brand_kind
--   days                       complete days of the week with answers
--   mentions, all_brand_mentions, share_of_voice      the week's numerator, denominator and their ratio
--   previous_share_of_voice    the week before's (0 when the brand was not named then, NULL when it had no answers)
--   change                     share_of_voice - previous_share_of_voice, in points of the 0-1 scale
-- Source: v_share_of_voice_daily.
CREATE OR REPLACE VIEW v_share_of_voice_wow AS
WITH days AS (
  SELECT DISTINCT brand_id, "day", all_brand_mentions, CAST(date_trunc('week', "day") AS DATE) AS week_start
  FROM v_share_of_voice_daily
),
weeks AS (
  SELECT brand_id, week_start, count(*) AS days, sum(all_brand_mentions) AS all_brand_mentions FROM days GROUP BY ALL
),
named AS (
  SELECT brand_id, CAST(date_trunc('week', "day") AS DATE) AS week_start, brand_name,
         bool_or(is_own_brand) AS is_own_brand, any_value(brand_kind) AS brand_kind, sum(mentions) AS mentions
  FROM v_share_of_voice_daily GROUP BY ALL
),
shares AS (
  SELECT n.*, w.days, w.all_brand_mentions, n.mentions / nullif(w.all_brand_mentions, 0) AS share_of_voice
  FROM named AS n JOIN weeks AS w USING (brand_id, week_start)
)
SELECT
  s.brand_id,
  s.week_start,
  s.brand_name,
  s.is_own_brand,
  s.brand_kind,
  s.days,
  s.mentions,
  s.all_brand_mentions,
  s.share_of_voice,
  CASE WHEN pw.brand_id IS NULL THEN NULL ELSE coalesce(p.share_of_voice, 0) END AS previous_share_of_voice,
  s.share_of_voice - CASE WHEN pw.brand_id IS NULL THEN NULL ELSE coalesce(p.share_of_voice, 0) END AS change
FROM shares AS s
LEFT JOIN weeks AS pw ON pw.brand_id = s.brand_id AND pw.week_start = s.week_start - 7
LEFT JOIN shares AS p ON p.brand_id = s.brand_id AND p.brand_name = s.brand_name AND p.week_start = s.week_start - 7;
