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
  async measure({ client, connection, brandId, signal, notCompared }, window) {
    const api = new Map<string, number>();
    let totalCitations: number | null = null;
    const answersRead = new Set<number>();
    for await (const page of client.read(trackedUrlsEndpoint, brandId, {
      startDate: window.from,
      endDate: window.to,
      signal,
    })) {
      totalCitations = page.info?.citations ?? totalCitations;
      for (const record of page.records) {
        api.set(pageFigure(record.id), record.citations);
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
    // The answers the counts read is one figure only where every page carries the same count, which the spec does not
    // say ("answers of the range that the count reads"): an API counting per page had verify call right days wrong, and
    // advise a backfill that could not change them. Where pages differ, on either side, it is not compared.
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

function pageFigure(trackedUrlId: number): string {
  return `page ${trackedUrlId}: answers citing it`;
}
