-- v_brand_mentions_daily: every brand the answers name (own and every competitor), per day over every engine,
-- counted exactly from the answers: v_brand_mentions_engine_daily summed over engines.
-- Grain: one row per brand_id (the account's brand), day, brand_name.
-- Columns:
--   brand_id, day, brand_name, is_own_brand
--   engines                 engines whose answers named the brand that day
--   answers                 denominator of visibility: every answer of the day, every engine (`conversations`)
--   answers_naming          answers that name this brand
--   visibility              answers_naming / answers
--   mentions                times this brand is named
--   all_brand_mentions      denominator of share of voice: times any brand is named in the day's answers
--   share_of_voice          mentions / all_brand_mentions
-- Sum the numerators and denominators for any window; never average the ratios.
-- Source: v_brand_mentions_engine_daily (conversations and conversation_brands).
CREATE OR REPLACE VIEW v_brand_mentions_daily AS
WITH day_totals AS (
  SELECT brand_id, "day", count(*) AS answers FROM conversations GROUP BY ALL
),
per_brand AS (
  SELECT brand_id, "day", brand_name, bool_or(is_own_brand) AS is_own_brand, count(*) AS engines,
         sum(answers_naming) AS answers_naming, sum(mentions) AS mentions
  FROM v_brand_mentions_engine_daily
  GROUP BY ALL
)
SELECT
  p.brand_id,
  p."day",
  p.brand_name,
  p.is_own_brand,
  p.engines,
  t.answers,
  p.answers_naming,
  p.answers_naming / nullif(t.answers, 0) AS visibility,
  p.mentions,
  sum(p.mentions) OVER (PARTITION BY p.brand_id, p."day") AS all_brand_mentions,
  p.mentions / nullif(sum(p.mentions) OVER (PARTITION BY p.brand_id, p."day"), 0) AS share_of_voice
FROM per_brand AS p
JOIN day_totals AS t ON t.brand_id = p.brand_id AND t."day" = p."day";
