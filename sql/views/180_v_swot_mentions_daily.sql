-- v_swot_mentions_daily: the answers behind each SWOT statement, per day, so any window's mentions are a sum.
-- swot_statements.mentions is the count of the last window a run read (window_start..window_end); this view counts
-- the answers themselves, each dated by its day.
-- Grain: one row per brand_id, statement_id, day.
-- Columns:
--   brand_id, statement_id, type, text   the statement
--   day                                  the UTC day of the answers
--   mentions                             answers of that day behind the statement (swot_answers rows)
--   engines                              distinct engines (model) of those answers; null models are not counted
-- Source: swot_answers and swot_statements (spec endpoint 20).
CREATE OR REPLACE VIEW v_swot_mentions_daily AS
SELECT
  a.brand_id,
  a.statement_id,
  any_value(s."type") AS "type",
  any_value(s."text") AS "text",
  a."day",
  count(*) AS mentions,
  count(DISTINCT a.model) AS engines
FROM swot_answers AS a
LEFT JOIN swot_statements AS s ON s.brand_id = a.brand_id AND s.statement_id = a.statement_id
GROUP BY a.brand_id, a.statement_id, a."day";
