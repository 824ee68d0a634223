/**
 * The URLs of a brand's tracked pages listed by a daily report within the week up to its latest day read ($1 brand),
 * or on a day from $2 on (null for none), or all when no day was read. A week, so one short day drops no page.
 */
export const LISTED_PAGES_SQL = `WITH latest AS (SELECT max("day") AS "day" FROM tracked_url_daily WHERE brand_id = $1)
  SELECT t.url FROM tracked_urls t, latest
   WHERE t.brand_id = $1
     AND t.url IS NOT NULL
     AND (latest."day" IS NULL OR EXISTS (
       SELECT 1 FROM tracked_url_daily d
        WHERE d.brand_id = t.brand_id AND d.tracked_url_id = t.id
          AND (d."day" > latest."day" - INTERVAL 7 DAY OR d."day" >= CAST($2 AS DATE))))`;
