-- v_share_of_voice_daily: share of voice, the one definition every view, query and the report use: a brand's
-- mentions in the day's answers over the mentions of every brand named in them, every engine, complete days only.
-- Today (UTC) is left out: the API adds answers until it ends. With today: v_share_of_voice_daily_including_today.
-- Grain: one row per brand_id (the account's brand), day, brand_name (a brand the answers name).
-- Columns:
--   brand_id, day, brand_name, is_own_brand
--   brand_kind          own | tracked competitor (confirmed) | suggested competitor (the platform's) | other brand
--   mentions            times this brand is named in the day's answers (the numerator)
--   all_brand_mentions  times any brand is named in them (the denominator, the same on every row of the day)
--   share_of_voice      mentions / all_brand_mentions
-- For a window, sum mentions, and all_brand_mentions once per day; never average the ratios.
-- Source: v_brand_mentions_daily (conversations and conversation_brands), competitors (is_actual).
CREATE OR REPLACE VIEW v_share_of_voice_daily_including_today AS
WITH kinds AS (
  SELECT brand_id, lower(name) AS key, bool_or(is_actual) AS confirmed FROM competitors GROUP BY ALL
)
SELECT
  m.brand_id,
  m."day",
  m.brand_name,
  m.is_own_brand,
  CASE
    WHEN m.is_own_brand THEN 'own'
    WHEN k.confirmed THEN 'tracked competitor'
    WHEN k.key IS NOT NULL THEN 'suggested competitor'
    ELSE 'other brand'
  END AS brand_kind,
  m.mentions,
  m.all_brand_mentions,
  m.share_of_voice
FROM v_brand_mentions_daily AS m
LEFT JOIN kinds AS k ON k.brand_id = m.brand_id AND k.key = lower(m.brand_name);

CREATE OR REPLACE VIEW v_share_of_voice_daily AS
SELECT * FROM v_share_of_voice_daily_including_today
WHERE "day" < CAST(now() AT TIME ZONE 'UTC' AS DATE);
