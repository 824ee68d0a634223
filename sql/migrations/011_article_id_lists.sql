-- 011: an article's topic_ids and scenario_ids were INTEGER[] while every other id is BIGINT ("Identifiers (id,
-- *_id) are integers", no size given): an id past 2^31 set the whole article aside as row_invalid. Widened in
-- place; the ids already loaded fit.
ALTER TABLE articles ALTER COLUMN topic_ids SET DATA TYPE BIGINT[];
ALTER TABLE articles ALTER COLUMN scenario_ids SET DATA TYPE BIGINT[];
