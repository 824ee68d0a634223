import { productRankingEndpoint } from '../streams/product-ranking.js';
import { figure, pairFigures, rangeOf, type FigureFamily } from './figure.js';
import { warehouseFigures, warehouseNumber } from './warehouse-figures.js';

/** The ranking compared: the brand's own products by visibility, the one the dashboard leads with. */
const METRIC = 'visibility';
const SUBJECT = 'brand';

/**
 * Product ranks over the window (spec endpoint 19), rank and shopping answers per product, against
 * `product_ranking_daily` re-ranked. Ties are unordered: a tied product agrees at any rank it shares (`tiedRanks`).
 */
export const productRankingFamily: FigureFamily = {
  name: 'product_ranking',
  async measure({ client, connection, brandId, signal, notCompared }, window) {
    const api = new Map<string, number>();
    let shopping: number | null = null;
    const shares: Array<{ id: number; visibility: number }> = [];
    const pages = client.read(productRankingEndpoint, brandId, {
      ...rangeOf(window),
      metric: METRIC,
      subject: SUBJECT,
      order: 'desc',
      signal,
    });
    for await (const page of pages) {
      shopping = page.info?.shopping_conversations ?? shopping;
      for (const record of page.records) {
        api.set(`product ${record.id}: rank`, record.rank);
        if (record.visibility != null) shares.push({ id: record.id, visibility: record.visibility });
      }
    }
    // A share rounded to d decimals (the most any share of the answer has: 0.25 may be exact) is off by up to half of
    // 10^-d, times the count; past half an answer, the count cannot be told.
    const off = 0.5 * 10 ** -Math.max(0, ...shares.map((share) => decimalsOf(share.visibility))) * (shopping ?? 0);
    let sharesOfShopping = true;
    for (const { id, visibility } of shares) {
      if (shopping === null) break;
      const listed = visibility * shopping;
      if (off >= 0.5 || Math.abs(listed - Math.round(listed)) > off + WHOLE_COUNT_TOLERANCE) sharesOfShopping = false;
      api.set(`product ${id}: shopping answers listing it`, Math.round(listed));
    }
    const params = [brandId, window.from, window.to, METRIC, SUBJECT];
    const warehouseShopping = await warehouseNumber(
      connection,
      `SELECT coalesce(sum(shopping_conversations), 0) FROM product_ranking_shopping_daily
        WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE AND metric = $4 AND subject = $5`,
      params,
    );
    const shoppingFigure = figure('product_ranking', 'shopping answers', shopping ?? 0, warehouseShopping);
    // Counts and ranks are rebuilt from visibility as a share of the shopping answers, which the spec does not promise;
    // where it is not, only the shopping answers are compared, as no backfill could change the rest.
    if (!sharesOfShopping) {
      notCompared?.(
        "product_ranking's ranks and answers listing each product: a product's visibility times the shopping answers is no whole count " +
          '(a share of every answer, or rounded too coarsely), so they cannot be rebuilt from the daily rows',
      );
      return [shoppingFigure];
    }
    const warehouse = await warehouseFigures(
      connection,
      `WITH shopping AS (
         SELECT "day", shopping_conversations FROM product_ranking_shopping_daily
          WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE AND metric = $4 AND subject = $5),
       listed AS (
         SELECT p.product_id, sum(round(p.visibility * s.shopping_conversations))::BIGINT AS answers
           FROM product_ranking_daily p JOIN shopping s USING ("day")
          WHERE p.brand_id = $1 AND p."day" BETWEEN $2::DATE AND $3::DATE AND p.metric = $4 AND p.subject = $5
          GROUP BY p.product_id)
       SELECT 'product ' || product_id || ': rank' AS figure, rank() OVER (ORDER BY answers DESC) AS n
         FROM listed WHERE answers > 0
       UNION ALL
       SELECT 'product ' || product_id || ': ${LAST_TIED}', rank() OVER (ORDER BY answers DESC) + count(*) OVER (PARTITION BY answers) - 1
         FROM listed WHERE answers > 0
       UNION ALL
       SELECT 'product ' || product_id || ': shopping answers listing it', answers FROM listed`,
      params,
    );
    return [shoppingFigure, ...pairFigures('product_ranking', api, tiedRanks(api, warehouse))];
  },
};

const LAST_TIED = 'last place shared';

/** How far from a whole number a share times its count may fall, beyond its rounding, and still be a count. */
const WHOLE_COUNT_TOLERANCE = 1e-6;

/** The decimals a share was given with (`0.4113` -> 4); a share in full binary precision reads as 17 or so. */
function decimalsOf(share: number): number {
  const text = String(share);
  const exponent = /e-(\d+)$/.exec(text);
  const fraction = text.split('e')[0]!.split('.')[1] ?? '';
  return fraction.length + (exponent ? Number(exponent[1]) : 0);
}

/**
 * The warehouse's ranks as compared: a product whose count others share holds the places first..last; the API's
 * rank agrees when it is one of them (it stands for the warehouse's then), and otherwise the nearest of them is shown.
 */
export function tiedRanks(
  api: ReadonlyMap<string, number>,
  warehouse: ReadonlyMap<string, number>,
): Map<string, number> {
  const compared = new Map<string, number>();
  for (const [key, value] of warehouse) {
    if (key.endsWith(`: ${LAST_TIED}`)) continue;
    const last = warehouse.get(key.replace(/: rank$/, `: ${LAST_TIED}`));
    const theirs = api.get(key);
    if (!key.endsWith(': rank') || last === undefined || theirs === undefined) compared.set(key, value);
    else compared.set(key, Math.min(Math.max(theirs, value), last));
  }
  return compared;
}
