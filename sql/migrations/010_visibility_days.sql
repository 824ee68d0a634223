-- 010: the visibility report's `days` (spec endpoint 16: the days of the range with answers for the topic or
-- scenario) was dropped at load; kept now beside the other measures of a topic's and a scenario's day. A day's
-- request gives 1, or 0 where the API counts otherwise; rows loaded before this migration have NULL.
ALTER TABLE visibility_topic_daily ADD COLUMN days INTEGER;
ALTER TABLE visibility_scenario_daily ADD COLUMN days INTEGER;
