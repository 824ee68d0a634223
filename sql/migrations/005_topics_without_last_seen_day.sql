-- 005: topics and scenarios lose last_seen_day. It was merged from whichever day's visibility slice committed
-- last, so two runs over the same data could disagree on it (slices commit in any order); the days a topic or
-- scenario was seen are exact in visibility_topic_daily and visibility_scenario_daily.
ALTER TABLE topics DROP COLUMN last_seen_day;
ALTER TABLE scenarios DROP COLUMN last_seen_day;
