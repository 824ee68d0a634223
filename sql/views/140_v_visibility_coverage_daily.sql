-- v_visibility_coverage_daily: which engines the visibility report's numbers of a day cover, and why its answers can
-- be fewer than the day's conversations: the report defaults to "the engines of the brand", the conversations to
-- "each engine" (spec, shared query filters). The engines are those its info.query says it applied.
-- Grain: one row per brand_id, day with a visibility slice that echoed its query.
-- Columns:
--   brand_id, day
--   engines                          the engines the visibility rows of that day cover (from info.query, as it
--                                    spells them)
--   visibility_answers               sum of conversations of visibility_topic_daily that day
--   conversations_of_those_engines   the day's answers in conversations whose model is one of those engines, in
--                                    any letter case: the API may spell an engine in another case in the answers'
--                                    model than in the echo ("Chatgpt", "chatgpt")
--   conversations_all_engines        the day's answers in conversations, every engine; null when that day's
--                                    conversations were read with an engines filter (api.engines), which left
--                                    the other engines' answers out
--   agrees                           visibility_answers = conversations_of_those_engines
CREATE OR REPLACE VIEW v_visibility_coverage_daily AS
WITH echo AS (
  SELECT brand_id, "day", engines, [lower(e) FOR e IN engines] AS engine_keys
  FROM _slice_queries WHERE stream = 'visibility' AND "day" IS NOT NULL
),
report AS (
  SELECT brand_id, "day", sum(conversations) AS answers FROM visibility_topic_daily GROUP BY ALL
),
filtered AS (
  SELECT DISTINCT brand_id, "day" FROM _slice_queries WHERE stream = 'conversations' AND engines IS NOT NULL AND "day" IS NOT NULL
),
answers AS (
  SELECT e.brand_id, e."day",
         count(c.id) FILTER (WHERE list_contains(e.engine_keys, lower(c.model))) AS of_those_engines,
         count(c.id) AS all_engines
  FROM echo AS e
  LEFT JOIN conversations AS c ON c.brand_id = e.brand_id AND c."day" = e."day"
  GROUP BY ALL
)
SELECT
  e.brand_id,
  e."day",
  e.engines,
  coalesce(r.answers, 0) AS visibility_answers,
  a.of_those_engines AS conversations_of_those_engines,
  CASE WHEN f."day" IS NULL THEN a.all_engines END AS conversations_all_engines,
  coalesce(r.answers, 0) = a.of_those_engines AS agrees
FROM echo AS e
JOIN answers AS a USING (brand_id, "day")
LEFT JOIN report AS r USING (brand_id, "day")
LEFT JOIN filtered AS f USING (brand_id, "day");
