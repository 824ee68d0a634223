-- v_share_of_voice_daily: share of voice of the own brand and its competitors per day, over every topic, as the
-- visibility report (spec endpoint 16; the engines of the brand) counts it.
-- Grain: one row per brand_id (the account's brand), day, brand_name (a brand the report lists).
-- Columns:
--   brand_id, day, brand_name, is_own_brand
--   topics                   topics in which the report listed this brand that day
--   conversations            sum of the topics' answers that day
--   mentioned_conversations  answers of those topics that mention this brand
--   visibility               mentioned_conversations / conversations
--   all_brand_mentions       the denominator: mentions of every brand named in the day's answers, listed or not,
--                            summed over topics; each topic's is the report's own (mentions / its share_of_voice)
--   denominator_from_api     true when every topic of the day gave its denominator; false when a topic whose listed
--                            brands were never named gave none and counts the listed brands' mentions (zero) instead
--   share_of_voice           mentioned_conversations / all_brand_mentions
-- The report lists the own brand plus the five competitors with the highest value per topic; the denominator is
-- still every brand's mentions, as the report's own share_of_voice has it. For every brand named, listed or not, and
-- per engine, see v_brand_mentions_daily. Sum the numerators for any window.
CREATE OR REPLACE VIEW v_share_of_voice_daily AS
WITH topic_denominators AS (
  SELECT
    brand_id,
    "day",
    topic_id,
    round(max(mentioned_conversations / share_of_voice) FILTER (WHERE share_of_voice > 0)) AS from_api,
    sum(mentioned_conversations) AS listed_mentions
  FROM visibility_topic_brand_daily
  GROUP BY brand_id, "day", topic_id
),
day_denominators AS (
  SELECT
    brand_id,
    "day",
    sum(coalesce(from_api, listed_mentions)) AS all_brand_mentions,
    bool_and(from_api IS NOT NULL) AS denominator_from_api
  FROM topic_denominators
  GROUP BY brand_id, "day"
),
per_brand AS (
  SELECT
    brand_id,
    "day",
    brand_name,
    bool_or(is_own_brand) AS is_own_brand,
    count(*) AS topics,
    sum(conversations) AS conversations,
    sum(mentioned_conversations) AS mentioned_conversations
  FROM visibility_topic_brand_daily
  GROUP BY brand_id, "day", brand_name
)
SELECT
  p.brand_id,
  p."day",
  p.brand_name,
  p.is_own_brand,
  p.topics,
  p.conversations,
  p.mentioned_conversations,
  p.mentioned_conversations / nullif(p.conversations, 0) AS visibility,
  d.all_brand_mentions,
  d.denominator_from_api,
  p.mentioned_conversations / nullif(d.all_brand_mentions, 0) AS share_of_voice
FROM per_brand AS p
JOIN day_denominators AS d ON d.brand_id = p.brand_id AND d."day" = p."day";
