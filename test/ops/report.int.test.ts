import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport } from '../../src/ops/report-builder.js';
import type { ReportData } from '../../src/ops/report-data.js';
import { REPORT_CHARTS } from '../../src/ops/report-html.js';
import { engineFixture, runInProcess, scalarOfFile, type EngineFixture } from '../support/engine.js';
import { chromiumMissing, CHROMIUM_SKIP_REASON, launchChromium, screenshotPath, type HeadlessChromium } from './browser.js';

/**
 * `bvsync report` from a published database that a real backfill wrote: the numbers it embeds agree with the views,
 * and in headless Chromium, with every network request refused (the page must work offline), each chart draws.
 */

const STREAMS = ['visibility', 'competitors', 'tracked_urls', 'citations', 'domain_details', 'product_ranking'];
const FROM = '2026-11-16';
const TO = '2026-11-20';

let fx: EngineFixture;
let out: string;
let data: ReportData;

beforeAll(async () => {
  fx = await engineFixture('report', { sim: { brands: 2, days: 10, scale: 30 } });
  const run = await runInProcess(fx, { kind: 'backfill', today: TO, from: FROM, to: TO, streams: STREAMS });
  expect(run.meta.status).toBe('complete');
  out = join(fx.dir, 'report.html');
  ({ data } = await buildReport({ db: fx.config.db, out }));
});
afterAll(async () => fx?.cleanup());

describe('the analysts\' report: data', () => {
  it('covers the synced days and every brand, and names the last run', () => {
    expect([data.from, data.to]).toEqual([FROM, TO]);
    expect(data.brands.map((brand) => brand.brandId)).toEqual(fx.config.brands);
    expect(data.lastRun?.status).toBe('complete');
    for (const brand of data.brands) expect(brand.name).toBeTruthy();
  });

  it('agrees with the views and tables it reads', async () => {
    const brand = data.brands[0]!;
    const mentioned = await scalarOfFile(fx.config.db, 'SELECT sum(mentioned_conversations) FROM v_visibility_topic_daily WHERE brand_id = $1', [brand.brandId]);
    expect(brand.visibility.reduce((sum, row) => sum + row.mentioned, 0)).toBe(mentioned);
    for (const day of new Set(brand.shareOfVoice.map((row) => row.day))) {
      const shares = brand.shareOfVoice.filter((row) => row.day === day).reduce((sum, row) => sum + (row.share ?? 0), 0);
      expect(shares).toBeCloseTo(1, 9);
    }
    const ownership = await scalarOfFile(fx.config.db, "SELECT sum(occurrences) FROM citation_daily WHERE brand_id = $1 AND dimension = 'ownership'", [brand.brandId]);
    expect(brand.citationsByOwnership.reduce((sum, row) => sum + row.occurrences, 0)).toBe(ownership);
    const top = brand.topDomains[0]!;
    expect(top.occurrences).toBe(await scalarOfFile(fx.config.db, 'SELECT max(o) FROM (SELECT sum(occurrences) AS o FROM domain_daily WHERE brand_id = $1 GROUP BY domain)', [brand.brandId]));
    for (const mover of brand.rankMovers) expect(mover.change).toBe(mover.firstRank - mover.lastRank);
    expect(brand.trackedUrls.length).toBeGreaterThan(0);
  });

  it('is one self-contained file: the data, d3 and Plot inlined, nothing loaded from elsewhere', () => {
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('id="report-data"');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/i);
    expect(statSync(out).size).toBeLessThan(2_000_000);
  });
});

if (chromiumMissing) console.warn(CHROMIUM_SKIP_REASON);

describe.skipIf(chromiumMissing)('the analysts\' report in a browser', () => {
  let browser: HeadlessChromium;
  beforeAll(async () => {
    browser = await launchChromium({ width: 1000, height: 900 });
  });
  afterAll(async () => browser?.close());

  it('draws every chart of every brand offline, and is screenshotted', async () => {
    const page = await browser.context.newPage();
    const refused: string[] = [];
    await page.route('**/*', (route) => {
      if (route.request().url().startsWith('file:')) return route.continue();
      refused.push(route.request().url());
      return route.abort();
    });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(pathToFileURL(out).href);
    // Strings, not functions: they run in the page, and this project's TypeScript has no DOM types.
    await page.waitForFunction('document.body.dataset.rendered === "true"', undefined, { timeout: 15_000 });
    expect(errors).toEqual([]);
    expect(refused).toEqual([]);
    expect(await page.evaluate('document.body.dataset.failures')).toBe('');
    expect(Number(await page.evaluate('document.body.dataset.charts'))).toBe(REPORT_CHARTS.length * data.brands.length);

    const brand = data.brands[0]!;
    const section = (key: string) => page.locator(`[data-brand="${brand.brandId}"][data-chart="${key}"]`);
    for (const chart of REPORT_CHARTS) {
      await expect(section(chart.key).locator('h3').innerText()).resolves.toBe(chart.title);
      expect(await section(chart.key).locator('svg').count()).toBeGreaterThan(0);
    }
    // Marks match the data: a line per topic, a bar per domain and per tracked page, an arrow per mover.
    const topics = new Set(brand.visibility.map((row) => row.topic)).size;
    expect(await section('visibility').locator('svg [aria-label="line"] path').count()).toBe(topics);
    expect(await section('topDomains').locator('svg [aria-label="bar"] rect').count()).toBe(brand.topDomains.length);
    expect(await section('trackedUrls').locator('svg [aria-label="bar"] rect').count()).toBe(brand.trackedUrls.length);
    expect(await section('rankMovers').locator('svg [aria-label="arrow"] path').count()).toBe(brand.rankMovers.length);
    const header = await page.locator('header').innerText();
    expect(header).toContain(`${FROM} to ${TO}`);
    expect(header).toContain(brand.name!);

    const file = screenshotPath(fx.dir, 'report.png');
    await page.screenshot({ path: file });
    expect(readFileSync(file).subarray(1, 4).toString()).toBe('PNG');
  });
});
