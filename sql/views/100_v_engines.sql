-- v_engines: every engine identifier bvsync has read for a brand, where it read it, and over which days. The spec
-- omits the engines' literal strings and gives each endpoint its own default, so they are learned, never guessed.
-- Grain: one row per brand_id, engine, source.
-- Columns:
--   brand_id
--   engine          as that source spelled it: the API may spell one engine in another letter case in another source
--                   (conversations' model "Chatgpt", the visibility echo "chatgpt"; the spec omits the literal ids), so
--                   one engine can have a row per spelling, and ids from two sources compare ignoring case
--   source          where the identifier was read:
--                     'visibility'       the visibility report's info.query: with no engines sent, "the engines of
--                                        the brand" (the default of visibility by topic and product ranking)
--                     'citations', 'domain_details'   those reports' info.query: with no engines sent, "each engine"
--                     'visibility_by_engine'           the engine a per-engine slice asked for, as the API applied it
--                     'product_ranking_by_engine', 'tracked_urls', 'swot', ...   the engines filter those slices sent
--                                        (a per-engine slice's engine, or api.engines): their answers echo no query
--                     'conversations'    the model of the brand's answers (may name engines no report selects)
--                     'conversations_sent'   the engines filter the conversations slices sent (api.engines)
--   first_seen_day, last_seen_day   the first and last day read with it
--   slices_or_answers               echoing slices (query sources) or answers (conversations) that name it
--   is_brand_engine                 whether the visibility report's default ever applied it (a brand engine): named,
--                                   in any letter case, by the echo of a visibility slice that sent no engines filter
--                                   (api.engines empty)
-- Join on brand_id and lower(engine) = lower(conversations.model), or lower() of any *_engine_daily table's engine.
CREATE OR REPLACE VIEW v_engines AS
WITH seen AS (
  -- The conversations' own source is their answers' models: a filter they sent is named apart, one row per source.
  SELECT q.brand_id, e.engine, CASE WHEN q.stream = 'conversations' THEN 'conversations_sent' ELSE q.stream END AS source,
         min(coalesce(q."day", q.range_start)) AS first_seen_day,
         max(coalesce(q."day", q.range_end)) AS last_seen_day,
         count(*) AS slices_or_answers
  FROM _slice_queries AS q, unnest(q.engines) AS e(engine)
  GROUP BY ALL
  UNION ALL
  SELECT brand_id, model, 'conversations', min("day"), max("day"), count(*)
  FROM conversations
  WHERE model IS NOT NULL
  GROUP BY ALL
)
SELECT
  s.*,
  lower(s.engine) IN (
    SELECT lower(e.engine) FROM _slice_queries AS q, unnest(q.engines) AS e(engine)
    WHERE q.brand_id = s.brand_id AND q.stream = 'visibility' AND q.sent_engines IS NULL
  ) AS is_brand_engine
FROM seen AS s;
