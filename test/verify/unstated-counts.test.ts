import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/api/index.js';
import { productRankingFamily } from '../../src/verify/product-ranking-family.js';
import { trackedUrlsFamily } from '../../src/verify/tracked-urls-family.js';

/**
 * Figures verify rebuilds on a reading the spec does not state: every tracked page of an answer carrying the same count
 * of answers read, and a product's visibility being a share of the shopping answers. An API that reads them otherwise
 * had verify call right days wrong and advise a backfill that could change nothing; such figures are not compared.
 */

const WINDOW = { from: '2026-11-19', to: '2026-11-20' };
let instance: DuckDBInstance;
let connection: DuckDBConnection;

/** A client whose one read answers `records` and `info` on one page. */
function answering(records: unknown[], info: Record<string, unknown>): ApiClient {
  return {
    read: async function* () {
      yield { records, rejects: [], info, totalRows: records.length };
    },
  } as unknown as ApiClient;
}

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run(
    `CREATE TABLE tracked_url_daily (brand_id INTEGER, "day" DATE, tracked_url_id INTEGER, citations INTEGER, conversations INTEGER)`,
  );
  await connection.run(`CREATE TABLE tracked_url_daily_totals (brand_id INTEGER, "day" DATE, citations INTEGER)`);
  await connection.run(
    `CREATE TABLE product_ranking_daily (brand_id INTEGER, "day" DATE, metric VARCHAR, subject VARCHAR, product_id INTEGER, visibility DOUBLE)`,
  );
  await connection.run(
    `CREATE TABLE product_ranking_shopping_daily (brand_id INTEGER, "day" DATE, metric VARCHAR, subject VARCHAR, shopping_conversations INTEGER)`,
  );
  // The answers each page's count read differ from page to page, as the API gives them: 18 and 21 on one day.
  await connection.run(
    `INSERT INTO tracked_url_daily VALUES (1, '2026-11-19', 1, 3, 18), (1, '2026-11-19', 2, 2, 21), (1, '2026-11-20', 1, 1, 20), (1, '2026-11-20', 2, 4, 20)`,
  );
  await connection.run(`INSERT INTO tracked_url_daily_totals VALUES (1, '2026-11-19', 5), (1, '2026-11-20', 5)`);
});

/** Replaces the products' days: each product test writes its own, so the tests pass in any order. */
async function productDays(shopping: string, products: string): Promise<void> {
  await connection.run(`DELETE FROM product_ranking_daily; DELETE FROM product_ranking_shopping_daily`);
  await connection.run(`INSERT INTO product_ranking_shopping_daily VALUES ${shopping}`);
  await connection.run(`INSERT INTO product_ranking_daily VALUES ${products}`);
}
afterAll(() => {
  connection?.closeSync();
  instance?.closeSync();
});

describe('verify, where the spec does not say how a count reads', () => {
  it('compares the answers the tracked-page counts read only when every page carries the same one', async () => {
    const pages = [
      { id: 1, url: 'https://a.example/1', citations: 4, conversations: 38 },
      { id: 2, url: 'https://a.example/2', citations: 6, conversations: 41 },
    ];
    const same = pages.map((page) => ({ ...page, conversations: 40 }));
    const measured = async (records: unknown[]) => {
      const why: string[] = [];
      const figures = await trackedUrlsFamily.measure(
        {
          client: answering(records, { citations: 10 }),
          connection,
          brandId: 1,
          notCompared: (reason) => why.push(reason),
        },
        WINDOW,
      );
      return {
        read: figures.find((entry) => entry.figure === 'answers the counts read'),
        agree: figures.every((entry) => entry.agree),
        why,
      };
    };
    // Both sides per page: it had compared the last page's 41 with the days' maxima, 21 + 20, and called right days wrong.
    let result = await measured(pages);
    expect(result).toMatchObject({
      read: undefined,
      agree: true,
      why: [expect.stringMatching(/the API's pages carry 2 different counts/)],
    });
    // The warehouse's days alone carry two counts (18 and 21 on the 19th).
    result = await measured(same);
    expect(result).toMatchObject({
      read: undefined,
      why: [expect.stringMatching(/1 day\(s\) of the warehouse's pages carry different counts/)],
    });

    await connection.run(`UPDATE tracked_url_daily SET conversations = 20 WHERE "day" = '2026-11-19'`);
    // The API's pages alone carry two counts.
    result = await measured(pages);
    expect(result).toMatchObject({
      read: undefined,
      why: [expect.stringMatching(/the API's pages carry 2 different counts/)],
    });
    result = await measured(same);
    expect(result).toMatchObject({ read: { api: 40, warehouse: 40, agree: true }, why: [] });
  });

  it("compares the products' counts and ranks only when visibility times the shopping answers is a whole count", async () => {
    // Visibility as a share of every answer (40 a day), not of the shopping answers (10 a day).
    await productDays(
      `(1, '2026-11-19', 'visibility', 'brand', 10), (1, '2026-11-20', 'visibility', 'brand', 10)`,
      `(1, '2026-11-19', 'visibility', 'brand', 7, 0.1), (1, '2026-11-20', 'visibility', 'brand', 7, 0.075), (1, '2026-11-19', 'visibility', 'brand', 8, 0.05), (1, '2026-11-20', 'visibility', 'brand', 8, 0.05)`,
    );
    // Over the window, product 7 is listed in 7 of 80 answers, product 8 in 4, and 20 answers were shopping ones.
    const products = [
      { id: 7, rank: 1, label: 'A', title: 'A', visibility: 7 / 80 },
      { id: 8, rank: 2, label: 'B', title: 'B', visibility: 4 / 80 },
    ];
    const why: string[] = [];
    const figures = await productRankingFamily.measure(
      {
        client: answering(products, { shopping_conversations: 20 }),
        connection,
        brandId: 1,
        notCompared: (reason) => why.push(reason),
      },
      WINDOW,
    );
    // It had rebuilt 2 and 1 answers listing them from the API's shares, and 3 and 2 from the warehouse's days: wrong.
    expect(figures.map((entry) => [entry.figure, entry.agree])).toEqual([['shopping answers', true]]);
    expect(why).toEqual([
      expect.stringMatching(/^product_ranking's ranks and answers listing each product: .* no whole count/),
    ]);
  });

  it('still compares them when the shares are rounded, at the volume a real window has', async () => {
    await productDays(
      `(1, '2026-11-19', 'visibility', 'brand', 1500), (1, '2026-11-20', 'visibility', 'brand', 1500)`,
      `(1, '2026-11-19', 'visibility', 'brand', 7, 617.0 / 1500), (1, '2026-11-20', 'visibility', 'brand', 7, 617.0 / 1500)`,
    );
    // 1234 of 3000 shopping answers, the share given to 4 decimals: 0.4113 x 3000 is 1233.9.
    const why: string[] = [];
    const figures = await productRankingFamily.measure(
      {
        client: answering([{ id: 7, rank: 1, label: 'A', title: 'A', visibility: 0.4113 }], {
          shopping_conversations: 3000,
        }),
        connection,
        brandId: 1,
        notCompared: (reason) => why.push(reason),
      },
      WINDOW,
    );
    // A fixed tolerance of 0.05 had stopped comparing every product of any window past ~1,000 shopping answers.
    expect(why).toEqual([]);
    expect(figures.find((entry) => entry.figure === 'product 7: shopping answers listing it')).toMatchObject({
      api: 1234,
      warehouse: 1234,
      agree: true,
    });
    expect(figures.find((entry) => entry.figure === 'product 7: rank')).toMatchObject({ api: 1, agree: true });
  });
});
