-- v_brand_mentions_engine_daily: every brand the answers name (the own brand and every competitor, not only the
-- report's top five), per day and engine, counted exactly from the answers themselves.
-- Grain: one row per brand_id (the account's brand), day, engine, brand_name (a brand an answer of that day names).
-- Columns:
--   brand_id, day, engine (conversations.model: the engine that gave the answers), brand_name, is_own_brand
--   answers                 denominator of visibility: every answer of that day and engine in `conversations`
--                           (named brands or not; the conversations endpoint reads each engine)
--   answers_naming          answers that name this brand (numerator of visibility)
--   visibility              answers_naming / answers
--   mentions                times this brand is named in those answers
--   all_brand_mentions      denominator of share of voice: times any brand is named in that day's answers of the
--                           engine (every brand named, own and competitors, listed by the report or not)
--   share_of_voice          mentions / all_brand_mentions
-- Sum the numerators and denominators for any window or set of engines; never average the ratios. Restrict engine to
-- the brand's engines (see docs/tables.md) to compare with the visibility report, which reads those by default;
-- engine is conversations.model as spelled, so match it to v_engines ignoring letter case (lower() on both sides).
-- Source: conversations and conversation_brands (spec endpoint 13, `brands` of each answer).
CREATE OR REPLACE VIEW v_brand_mentions_engine_daily AS
WITH answers AS (
  SELECT brand_id, "day", coalesce(model, '') AS engine, count(*) AS answers
  FROM conversations
  GROUP BY ALL
),
named AS (
  SELECT b.brand_id, b."day", coalesce(c.model, '') AS engine, b.name AS brand_name,
         bool_or(b.is_own_brand) AS is_own_brand,
         count(DISTINCT b.conversation_id) AS answers_naming,
         count(*) AS mentions
  FROM conversation_brands AS b
  JOIN conversations AS c ON c.brand_id = b.brand_id AND c.id = b.conversation_id
  GROUP BY ALL
)
SELECT
  n.brand_id,
  n."day",
  n.engine,
  n.brand_name,
  n.is_own_brand,
  a.answers,
  n.answers_naming,
  n.answers_naming / nullif(a.answers, 0) AS visibility,
  n.mentions,
  sum(n.mentions) OVER (PARTITION BY n.brand_id, n."day", n.engine) AS all_brand_mentions,
  n.mentions / nullif(sum(n.mentions) OVER (PARTITION BY n.brand_id, n."day", n.engine), 0) AS share_of_voice
FROM named AS n
JOIN answers AS a ON a.brand_id = n.brand_id AND a."day" = n."day" AND a.engine = n.engine;
