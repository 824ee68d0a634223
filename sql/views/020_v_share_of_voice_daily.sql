-- v_share_of_voice_daily: share of voice of the own brand and its competitors per day, over every topic.
-- Grain: one row per brand_id (the account's brand), day, brand_name (a brand the answers name).
-- Columns:
--   brand_id, day, brand_name, is_own_brand
--   topics                   topics in which the report listed this brand that day
--   conversations            sum of the topics' answers that day
--   mentioned_conversations  answers of those topics that mention this brand
--   visibility               mentioned_conversations / conversations
--   share_of_voice           this brand's mentions / the mentions of every brand listed that day
-- The report lists the own brand plus the five competitors with the highest value per topic, so the
-- denominator is those brands' mentions, not every brand of the market. Sum the numerators for any window.
CREATE OR REPLACE VIEW v_share_of_voice_daily AS
WITH per_brand AS (
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
  brand_id,
  "day",
  brand_name,
  is_own_brand,
  topics,
  conversations,
  mentioned_conversations,
  mentioned_conversations / nullif(conversations, 0) AS visibility,
  mentioned_conversations / nullif(sum(mentioned_conversations) OVER (PARTITION BY brand_id, "day"), 0) AS share_of_voice
FROM per_brand;
