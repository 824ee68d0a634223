import { trackedUrlsEndpoint } from '../streams/tracked-urls.js';
import { figure, pairFigures, rangeOf, type FigureFamily } from './figure.js';
import { warehouseFigures, warehouseNumber } from './warehouse-figures.js';

/**
 * Tracked URL citations over the window (spec endpoint 3) against `tracked_url_daily` and its totals. `cited_urls` is
 * left out: a page cited on several days counts once in a window, so it does not add up.
 */
export const trackedUrlsFamily: FigureFamily = {
  name: 'tracked_urls',
  async measure({ client, connection, brandId, signal, notCompared }, window) {
    const api = new Map<string, number>();
    let totalCitations: number | null = null;
    const answersRead = new Set<number>();
    for await (const page of client.read(trackedUrlsEndpoint, brandId, { ...rangeOf(window), signal })) {
      totalCitations = page.info?.citations ?? totalCitations;
      for (const record of page.records) {
        api.set(`page ${record.id}: answers citing it`, record.citations);
        answersRead.add(record.conversations);
      }
    }
    const params = [brandId, window.from, window.to];
    const warehouse = await warehouseFigures(
      connection,
      `SELECT 'page ' || tracked_url_id || ': answers citing it' AS figure, sum(citations) AS n
         FROM tracked_url_daily WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE GROUP BY tracked_url_id`,
      params,
    );
    const warehouseTotal = await warehouseNumber(
      connection,
      'SELECT coalesce(sum(citations), 0) FROM tracked_url_daily_totals WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE',
      params,
    );
    // The answers the counts read is one figure only where every page carries the same count (the spec does not say);
    // where pages differ, on either side, no backfill could change it, so it is not compared.
    const daysOfPagesApart = await warehouseNumber(
      connection,
      `SELECT count(*) FROM (SELECT "day" FROM tracked_url_daily WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE
         GROUP BY "day" HAVING min(conversations) <> max(conversations))`,
      params,
    );
    const warehouseRead = await warehouseNumber(
      connection,
      `SELECT coalesce(sum(n), 0) FROM (SELECT max(conversations) AS n FROM tracked_url_daily
         WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE GROUP BY "day")`,
      params,
    );
    const oneCountRead = answersRead.size === 1 && daysOfPagesApart === 0;
    if (!oneCountRead && answersRead.size > 0) {
      notCompared?.(
        `tracked_urls' answers the counts read: ${answersRead.size > 1 ? `the API's pages carry ${answersRead.size} different counts` : `${daysOfPagesApart} day(s) of the warehouse's pages carry different counts`}, so they are no one figure`,
      );
    }
    return [
      figure('tracked_urls', 'citations of every page (info.citations)', totalCitations ?? 0, warehouseTotal),
      ...(oneCountRead ? [figure('tracked_urls', 'answers the counts read', [...answersRead][0], warehouseRead)] : []),
      ...pairFigures('tracked_urls', api, warehouse),
    ];
  },
};
