-- Question: week by week, what share of the brand mentions goes to us and to each competitor?
-- Parameters: the brand id (7 below).
-- Columns: week_start, brand_name, is_own_brand, mentioned_conversations, share_of_voice (of the listed brands' mentions).
SELECT
  CAST(date_trunc('week', "day") AS DATE) AS week_start,
  brand_name,
  bool_or(is_own_brand) AS is_own_brand,
  sum(mentioned_conversations) AS mentioned_conversations,
  sum(mentioned_conversations) / sum(sum(mentioned_conversations)) OVER (PARTITION BY week_start) AS share_of_voice
FROM v_share_of_voice_daily
WHERE brand_id = 7
GROUP BY week_start, brand_name
ORDER BY week_start DESC, share_of_voice DESC;
