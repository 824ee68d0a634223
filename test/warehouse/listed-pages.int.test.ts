import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDimensions, warehouseDimensions } from '../../src/streams/dimensions.js';
import { STREAMS } from '../../src/streams/registry.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/warehouse.js';
import { tempDir } from '../support/tmp.js';

/**
 * The pages the later streams fan out over (cited-page fanouts; citations and domain details by their domains) are
 * those the API still lists. A page no longer tracked keeps its row in tracked_urls, and every run had still asked the
 * API about it.
 */

const tmp = tempDir('listed-pages');
let wh: Warehouse;

beforeAll(async () => {
  wh = await openWarehouse(join(tmp.path, 'w.duckdb'));
});
afterAll(async () => {
  await wh.close();
  tmp.remove();
});

async function page(id: number, url: string, days: string[]): Promise<void> {
  await wh.query(
    `INSERT INTO tracked_urls (brand_id, id, url, title, created_at, _synced_at, _run_id) VALUES (7, $1, $2, 't', TIMESTAMP '2026-11-01 00:00:00', now(), 'r')`,
    [id, url],
  );
  for (const day of days) {
    await wh.query(
      `INSERT INTO tracked_url_daily (brand_id, tracked_url_id, "day", citations, conversations, citation_rate, _synced_at, _run_id) VALUES (7, $1, $2::DATE, 1, 10, 0.1, now(), 'r')`,
      [id, day],
    );
  }
}

describe('the tracked pages the API still lists', () => {
  it('are every page before a day was read, then those a daily report listed in the week up to the latest day', async () => {
    await wh.query(
      `INSERT INTO tracked_urls (brand_id, id, url, title, created_at, _synced_at, _run_id) VALUES (7, 1, 'https://a.example/kept', 't', TIMESTAMP '2026-11-01 00:00:00', now(), 'r')`,
    );
    expect(await wh.listedPages(7)).toEqual(['https://a.example/kept']);
    await wh.query('DELETE FROM tracked_urls');

    await page(1, 'https://a.example/kept', ['2026-11-10', '2026-11-20']);
    // Listed until the 12th, then untracked: the reports of the week before the 20th no longer name it.
    await page(2, 'https://a.example/untracked', ['2026-11-10', '2026-11-12']);
    // Missing from the latest day only (a day read short): still listed.
    await page(3, 'https://b.example/recent', ['2026-11-18']);
    expect((await wh.listedPages(7)).sort()).toEqual(['https://a.example/kept', 'https://b.example/recent']);
    expect(await wh.listedPages(8)).toEqual([]);
    // A backfill of the days it was tracked: its fanouts, domain citations and details are of that window.
    expect((await wh.listedPages(7, '2026-11-11')).sort()).toEqual([
      'https://a.example/kept',
      'https://a.example/untracked',
      'https://b.example/recent',
    ]);
    expect((await wh.listedPages(7, '2026-11-13')).sort()).toEqual([
      'https://a.example/kept',
      'https://b.example/recent',
    ]);
  });

  it('are the pages and the page domains the later streams fan out over', async () => {
    const dimensions = await readDimensions(
      STREAMS.values(),
      new Set(['pages', 'domains']),
      warehouseDimensions(wh),
      7,
      [],
    );
    // The untracked page's fanouts, and its domain's citations and details, had been asked for in every run.
    expect(dimensions.pages).toEqual(['https://a.example/kept', 'https://b.example/recent']);
    expect(dimensions.domains).toContain('b.example');
    expect(dimensions.pages).not.toContain('https://a.example/untracked');
  });
});
