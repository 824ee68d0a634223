import { trackedUrlsEndpoint } from '../streams/tracked-urls.js';
import type { FigureFamily } from './figure.js';
import { figure, pairFigures } from './figure.js';
import { warehouseFigures, warehouseNumber } from './warehouse-figures.js';

/**
 * Tracked URL citations over the window (spec endpoint 3, each engine by default): per page, the answers citing it,
 * and over every page the report's `info.citations` and the answers the counts read, against the sums of
 * `tracked_url_daily` and `tracked_url_daily_totals`. An answer is of one day, so the days' counts add up to the
 * window's. `cited_urls` is left out: pages cited on several days count once in a window, so it does not add up.
 */
export const trackedUrlsFamily: FigureFamily = {
  name: 'tracked_urls',
  async measure({ client, connection, brandId, signal }, window) {
    const api = new Map<string, number>();
    let totalCitations: number | null = null;
    let answersRead: number | null = null;
    for await (const page of client.read(trackedUrlsEndpoint, brandId, { startDate: window.from, endDate: window.to, signal })) {
      totalCitations = page.info?.citations ?? totalCitations;
      for (const record of page.records) {
        api.set(pageFigure(record.id), record.citations);
        answersRead = record.conversations;
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
    // Every page of a day carries the same count of answers read; the day's maximum is it.
    const warehouseRead = await warehouseNumber(
      connection,
      `SELECT coalesce(sum(n), 0) FROM (SELECT max(conversations) AS n FROM tracked_url_daily
         WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE GROUP BY "day")`,
      params,
    );
    return [
      figure('tracked_urls', 'citations of every page (info.citations)', totalCitations ?? 0, warehouseTotal),
      ...(answersRead === null ? [] : [figure('tracked_urls', 'answers the counts read', answersRead, warehouseRead)]),
      ...pairFigures('tracked_urls', api, warehouse),
    ];
  },
};

function pageFigure(trackedUrlId: number): string {
  return `page ${trackedUrlId}: answers citing it`;
}
