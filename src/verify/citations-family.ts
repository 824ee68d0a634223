import { citationsEndpoint, ownershipSummary } from '../streams/citations.js';
import { figure, pairFigures, rangeOf, type FigureFamily } from './figure.js';
import { readWhole } from './read-whole.js';
import { warehouseFigures, warehouseNumber } from './warehouse-figures.js';

/**
 * Citation totals over the window (spec endpoint 17, each engine by default): the summary's occurrences and its
 * occurrences per ownership, against the sums of `citation_daily`'s series of all citations and of each ownership.
 */
export const citationsFamily: FigureFamily = {
  name: 'citations',
  async measure({ client, connection, brandId, signal }, window) {
    const report = await readWhole(client, citationsEndpoint, brandId, { ...rangeOf(window), period: 'day', signal });
    const params = [brandId, window.from, window.to];
    const total = await warehouseNumber(
      connection,
      `SELECT coalesce(sum(occurrences), 0) FROM citation_daily
        WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE AND dimension = 'all'`,
      params,
    );
    const api = new Map(
      ownershipSummary({ info: report.info }, brandId).records.map((entry) => [
        `occurrences, ownership ${entry.ownership}`,
        entry.occurrences,
      ]),
    );
    const warehouse = await warehouseFigures(
      connection,
      `SELECT 'occurrences, ownership ' || "value" AS figure, sum(occurrences) AS n FROM citation_daily
        WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE AND dimension = 'ownership' GROUP BY "value"`,
      params,
    );
    return [
      figure('citations', 'occurrences (summary)', report.info?.summary?.occurrences ?? null, total),
      ...pairFigures('citations', api, warehouse),
    ];
  },
};
