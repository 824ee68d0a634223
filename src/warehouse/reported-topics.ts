/**
 * The ids of a brand's topics its visibility report named within the week up to its latest day read ($1 brand), or
 * on a day from $2 on (the run's first day; null for none), or all of them when no day was read. The report has a
 * row for a topic only on a day it had answers (spec: `total_rows` counts the topics with answers), so a topic
 * deleted in the API, or without answers all that while, is asked for no conversations: every run had asked for
 * each topic ever seen, every day, for good.
 */
export const REPORTED_TOPICS_SQL = `WITH latest AS (SELECT max("day") AS "day" FROM visibility_topic_daily WHERE brand_id = $1)
  SELECT t.id FROM topics t, latest
   WHERE t.brand_id = $1
     AND (latest."day" IS NULL OR EXISTS (
       SELECT 1 FROM visibility_topic_daily d
        WHERE d.brand_id = t.brand_id AND d.topic_id = t.id
          AND (d."day" > latest."day" - INTERVAL 7 DAY OR d."day" >= CAST($2 AS DATE))))
   ORDER BY t.id`;
