import { workingPathFor } from '../../src/warehouse/paths.js';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport } from '../../src/ops/report-builder.js';
import type { ReportData } from '../../src/ops/report-data.js';
import { REPORT_CHARTS } from '../../src/ops/report-html.js';
import { addDays } from '../../src/days.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runBvsync,
  runInProcess,
  scalarOfFile,
  type EngineFixture,
} from '../support/engine.js';
import {
  chromiumMissing,
  CHROMIUM_SKIP_REASON,
  launchChromium,
  screenshotPath,
  type HeadlessChromium,
} from './browser.js';

/**
 * `bvsync report` from a published database that a real backfill wrote: the numbers it embeds agree with the views,
 * and in headless Chromium, with every network request refused (the page must work offline), each chart draws.
 */

const STREAMS = [
  'visibility',
  'conversations',
  'competitors',
  'tracked_urls',
  'citations',
  'domain_details',
  'product_ranking',
];
// Synced from SYNCED_FROM; the report covers FROM to TO (8 days: a Friday to the next Friday, so two weeks cut to the
// window), and the 8 days before it are the previous period of the headline figures.
const SYNCED_FROM = '2026-11-05';
const FROM = '2026-11-13';
const TO = '2026-11-20';
const IN_WINDOW = `"day" BETWEEN '${FROM}'::DATE AND '${TO}'::DATE`;

let fx: EngineFixture;
let out: string;
let data: ReportData;

beforeAll(async () => {
  fx = await engineFixture('report', { sim: { brands: 2, days: 16, scale: 30 } });
  const run = await runInProcess(fx, { kind: 'backfill', today: TO, from: SYNCED_FROM, to: TO, streams: STREAMS });
  expect(run.meta.status).toBe('complete');
  out = join(fx.dir, 'report.html');
  // Made the day after TO, whatever the real date: TO is complete, so the default window ends on it.
  ({ data } = await buildReport({ db: fx.config.db, out, from: FROM, today: addDays(TO, 1) }));
  // 16 days of every stream: under a minute on a quiet box, past it beside a CPU hog (the hook had timed out).
}, 150_000);
afterAll(async () => fx?.cleanup());

describe("the analysts' report: data", () => {
  it('covers the synced days and every brand, and names the last run', () => {
    expect([data.from, data.to]).toEqual([FROM, TO]);
    expect(data.brands.map((brand) => brand.brandId)).toEqual(fx.config.brands);
    expect(data.lastRun?.status).toBe('complete');
    for (const brand of data.brands) expect(brand.name).toBeTruthy();
  });

  it('keeps the query each citations series says it applied, so the engines it covers are on record', async () => {
    const echoes = Number(
      await scalarOfFile(fx.config.db, `SELECT count(*) FROM _slice_queries WHERE stream = 'citations'`),
    );
    const slices = Number(
      await scalarOfFile(
        fx.config.db,
        `SELECT count(*) FROM _sync_state WHERE stream = 'citations' AND status = 'complete'`,
      ),
    );
    expect(slices).toBeGreaterThan(0);
    expect(echoes).toBe(slices);
  });

  it('agrees with the views and tables it reads', async () => {
    const brand = data.brands[0]!;
    const mentioned = await scalarOfFile(
      fx.config.db,
      `SELECT sum(mentioned_conversations) FROM v_visibility_topic_daily WHERE brand_id = $1 AND ${IN_WINDOW}`,
      [brand.brandId],
    );
    expect(brand.weeklyVisibility.reduce((sum, row) => sum + row.mentioned, 0)).toBe(mentioned);
    const days = new Set(brand.shareOfVoice.map((row) => row.day));
    const series = new Set(brand.shareOfVoice.map((row) => row.brand));
    // Zero-filled: every day has every series, so the stacked areas have no gaps.
    expect(brand.shareOfVoice.length).toBe(days.size * series.size);
    for (const day of days) {
      const shares = brand.shareOfVoice
        .filter((row) => row.day === day)
        .reduce((sum, row) => sum + (row.share ?? 0), 0);
      expect(shares).toBeCloseTo(1, 9);
    }
    const ownership = await scalarOfFile(
      fx.config.db,
      `SELECT sum(occurrences) FROM citation_daily WHERE brand_id = $1 AND dimension = 'ownership' AND ${IN_WINDOW}`,
      [brand.brandId],
    );
    expect(brand.citationsByOwnership.reduce((sum, row) => sum + row.occurrences, 0)).toBe(ownership);
    const top = brand.topDomains[0]!;
    expect(top.occurrences).toBe(
      await scalarOfFile(
        fx.config.db,
        `SELECT max(o) FROM (SELECT sum(occurrences) AS o FROM domain_daily WHERE brand_id = $1 AND ${IN_WINDOW} GROUP BY domain)`,
        [brand.brandId],
      ),
    );
    for (const mover of brand.rankMovers) expect(mover.change).toBe(mover.firstRank - mover.lastRank);
    expect(brand.trackedUrls.length).toBeGreaterThan(0);
  });

  it('says what each chart covers: its days in the window and the answers on them', async () => {
    expect(data.windowDays).toBe(8);
    for (const brand of data.brands) {
      const [days] = await queryFile(
        fx.config.db,
        `SELECT count(DISTINCT "day")::INTEGER AS n, sum(conversations)::INTEGER AS answers FROM v_visibility_topic_daily WHERE brand_id = $1 AND ${IN_WINDOW}`,
        [brand.brandId],
      );
      expect(brand.coverage.weeklyVisibility).toEqual({
        first: FROM,
        last: TO,
        days: Number(days!.n),
        answers: Number(days!.answers),
      });
      expect(brand.coverage.weeklyVisibility.answers).toBe(brand.headline.visibility.denominator);
      const [tracked] = await queryFile(
        fx.config.db,
        `SELECT count(DISTINCT "day")::INTEGER AS n FROM tracked_url_daily WHERE brand_id = $1 AND ${IN_WINDOW}`,
        [brand.brandId],
      );
      expect(brand.coverage.trackedUrls.days).toBe(Number(tracked!.n));
      // The tracked pages' "of N answers" and the chart's coverage count the same answers.
      expect(brand.coverage.trackedUrls.answers).toBe(Math.max(...brand.trackedUrls.map((row) => row.conversations)));
    }
  });

  it("shows the brand's own products beside the competitors' that moved most", async () => {
    for (const brand of data.brands) {
      const [own] = await queryFile(
        fx.config.db,
        `SELECT count(DISTINCT product_id)::INTEGER AS n FROM product_ranking_daily WHERE brand_id = $1 AND subject = 'brand' AND metric = 'visibility' AND "rank" IS NOT NULL AND ${IN_WINDOW}`,
        [brand.brandId],
      );
      const ours = brand.rankMovers.filter((row) => row.subject === 'brand');
      expect(Number(own!.n)).toBeGreaterThan(0);
      expect(ours.length).toBe(Math.min(6, Number(own!.n)));
      // Listed first; every row its own product (no two share a label, which would draw on one line).
      expect(brand.rankMovers.slice(0, ours.length)).toEqual(ours);
      expect(new Set(brand.rankMovers.map((row) => `${row.subject} ${row.product}`)).size).toBe(
        brand.rankMovers.length,
      );
    }
  });

  it('puts headline figures computed from the numerators at the top of each brand, against the period before', async () => {
    const ratioOf = (view: string, numerator: string, denominator: string, brandId: number, from: string, to: string) =>
      scalarOfFile(
        fx.config.db,
        `SELECT ${numerator} / ${denominator} FROM ${view} WHERE brand_id = $1 AND "day" BETWEEN $2::DATE AND $3::DATE`,
        [brandId, from, to],
      );
    const visibility = (brandId: number, from: string, to: string) =>
      ratioOf('v_visibility_topic_daily', 'sum(mentioned_conversations)', 'sum(conversations)', brandId, from, to);
    const share = (brandId: number, from: string, to: string) =>
      ratioOf(
        'v_share_of_voice_daily',
        'sum(mentions) FILTER (WHERE is_own_brand)',
        'sum(mentions)',
        brandId,
        from,
        to,
      );
    for (const brand of data.brands) {
      const h = brand.headline;
      // The window is 8 days, so the previous period is the 8 days before it.
      expect([h.previousFrom, h.previousTo]).toEqual(['2026-11-05', '2026-11-12']);
      expect(h.visibility.value).toBeCloseTo(await visibility(brand.brandId, FROM, TO), 12);
      expect(h.previousVisibility.value).toBeCloseTo(await visibility(brand.brandId, h.previousFrom, h.previousTo), 12);
      expect(h.shareOfVoice.value).toBeCloseTo(await share(brand.brandId, FROM, TO), 12);
      expect(h.previousShareOfVoice.value).toBeCloseTo(await share(brand.brandId, h.previousFrom, h.previousTo), 12);
      expect(brand.hasData).toBe(true);
    }
    // Before anything was synced: the previous period has no data, said so rather than shown as 0%.
    const early = await buildReport({
      db: fx.config.db,
      out: join(fx.dir, 'early.html'),
      from: SYNCED_FROM,
      to: '2026-11-08',
    });
    expect(early.data.brands[0]!.headline.previousVisibility).toEqual({
      numerator: 0,
      denominator: 0,
      value: null,
      days: 0,
    });
    expect(readFileSync(join(fx.dir, 'early.html'), 'utf8')).toContain('no data in the previous period');
  });

  it('gives share of voice one meaning: the report, v_share_of_voice_daily and the weekly example query agree', async () => {
    const query = readFileSync('sql/queries/02_share_of_voice_weekly.sql', 'utf8').replace(/;\s*$/, '');
    for (const brand of data.brands) {
      // 2026-11-16 is a Monday, and the window holds that whole week up to its Friday, the window's last day.
      const week = brand.shareOfVoice.filter((row) => row.day >= '2026-11-16');
      const own = week.filter((row) => row.own).reduce((sum, row) => sum + row.mentioned, 0);
      const all = week.reduce((sum, row) => sum + row.mentioned, 0);
      const [weekly] = await queryFile(
        fx.config.db,
        `SELECT share_of_voice FROM (${query.replace(/getvariable\('brand'\)/g, String(brand.brandId))}) WHERE week_start = '2026-11-16' AND brand_kind = 'own'`,
      );
      const viewed = await scalarOfFile(
        fx.config.db,
        `SELECT sum(mentions) FILTER (WHERE is_own_brand) / sum(mentions) FROM v_share_of_voice_daily WHERE brand_id = $1 AND "day" BETWEEN '2026-11-16' AND $2::DATE`,
        [brand.brandId, TO],
      );
      expect(own / all).toBeCloseTo(Number(viewed), 12);
      // The query rounds to four places.
      expect(Number(weekly!.share_of_voice)).toBeCloseTo(own / all, 4);
      // Every brand named is in the chart's denominator, so the suggested competitors' mentions count too.
      expect(all).toBe(
        await scalarOfFile(
          fx.config.db,
          `SELECT sum(all_brand_mentions) FROM (SELECT DISTINCT "day", all_brand_mentions FROM v_share_of_voice_daily WHERE brand_id = $1 AND "day" BETWEEN '2026-11-16' AND $2::DATE)`,
          [brand.brandId, TO],
        ),
      );
    }
  });

  it('weekly visibility sums the days of each topic and week, with a Wilson interval around it', async () => {
    const brand = data.brands[0]!;
    // 2026-11-16 is a Monday: the window holds the last 3 days of one week and the first 5 of the next.
    expect(new Set(brand.weeklyVisibility.map((row) => row.week))).toEqual(new Set([FROM, '2026-11-16']));
    for (const row of brand.weeklyVisibility) {
      expect(row.days).toBe(row.week === FROM ? 3 : 5);
      expect(row.visibility).toBeCloseTo(row.mentioned / row.conversations, 12);
      expect(row.low!).toBeLessThanOrEqual(row.visibility!);
      expect(row.high!).toBeGreaterThanOrEqual(row.visibility!);
      expect(row.high! - row.low!).toBeGreaterThan(0);
    }
  });

  it('labels ownership for people, in one order for every brand', () => {
    const orders = data.brands.map((brand) => [...new Set(brand.citationsByOwnership.map((row) => row.ownership))]);
    for (const order of orders) {
      expect(order).toEqual(data.ownershipOrder.filter((value) => order.includes(value)));
    }
    const labels = data.brands.flatMap((brand) => brand.citationsByOwnership.map((row) => row.label));
    expect(labels.some((label) => label.includes('_'))).toBe(false);
    if (orders.flat().includes('third_party_editorial')) expect(labels).toContain('Third-party editorial');
  });

  it('a brand the file does not hold, or a window with no data: a warning, exit 1 and nothing written', async () => {
    const env = cliEnv(fx);
    const unknownOut = join(fx.dir, 'unknown.html');
    const unknown = await runBvsync(['report', '--db', fx.config.db, '--brand', '9', '--out', unknownOut], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`brand 9 is not in`);
    expect(unknown.stderr).toContain(`holds brands ${fx.config.brands.join(', ')}`);
    expect(existsSync(unknownOut)).toBe(false);

    const emptyOut = join(fx.dir, 'empty.html');
    const empty = await runBvsync(
      ['report', '--db', fx.config.db, '--from', '2025-01-01', '--to', '2025-01-31', '--out', emptyOut],
      env,
    );
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('has no data between 2025-01-01 and 2025-01-31');
    expect(existsSync(emptyOut)).toBe(false);

    // One brand known and one not: the page is written for the one, and the command still says what is missing.
    const mixedOut = join(fx.dir, 'mixed.html');
    const mixed = await runBvsync(
      ['report', '--db', fx.config.db, '--brand', `${fx.config.brands[0]},9`, '--out', mixedOut],
      env,
    );
    expect(mixed.code).toBe(1);
    expect(mixed.stdout).toContain('1 brand with data');
    expect(existsSync(mixedOut)).toBe(true);
  });

  it('--out in a folder yet to be made is written there; --out a folder is refused, with nothing left beside it', async () => {
    const env = cliEnv(fx);
    const nested = join(fx.dir, 'reports', 'november', 'r.html');
    const made = await runBvsync(['report', '--db', fx.config.db, '--out', nested], env);
    expect(made.code, made.stderr).toBe(0);
    expect(statSync(nested).size).toBeGreaterThan(0);
    const folder = join(fx.dir, 'reports');
    const refused = await runBvsync(['report', '--db', fx.config.db, '--out', folder], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `bvsync: --out ${folder} is a folder; give the report a file name, such as ${join(folder, 'report.html')}`,
    );
    expect(existsSync(`${folder}.partial`)).toBe(false);
  });

  it('a full disk: the write fails naming the file, leaves no .partial, and keeps the earlier report', async () => {
    const out = join(fx.dir, 'full-disk', 'report.html');
    mkdirSync(join(fx.dir, 'full-disk'));
    writeFileSync(out, 'earlier');
    // Writes through this link meet ENOSPC, as on a full volume.
    symlinkSync('/dev/full', `${out}.partial`);
    await expect(buildReport({ db: fx.config.db, out, from: FROM, today: addDays(TO, 1) })).rejects.toThrow(
      `could not write the report to ${out} (ENOSPC: no space left on device, write); an earlier report there is kept`,
    );
    expect(lstatSync(`${out}.partial`, { throwIfNoEntry: false })).toBeUndefined();
    expect(readFileSync(out, 'utf8')).toBe('earlier');
  });

  it('--out naming the database or its working file is refused: the page had replaced the warehouse', async () => {
    const env = cliEnv(fx);
    const before = statSync(fx.config.db);
    for (const out of [fx.config.db, workingPathFor(fx.config.db)]) {
      const refused = await runBvsync(['report', '--db', fx.config.db, '--out', out], env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `bvsync: --out ${out} is a DuckDB database, which the report would replace; give the report a file name of its own, such as report.html`,
      );
    }
    expect(statSync(fx.config.db).mtimeMs).toBe(before.mtimeMs);
  });

  it('--out ending in a separator names a folder: refused like one, before the database is read, with no file of its name', async () => {
    const env = cliEnv(fx);
    const folder = join(fx.dir, 'not-yet-made');
    const refused = await runBvsync(['report', '--db', fx.config.db, '--out', `${folder}${sep}`], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `bvsync: --out ${folder}${sep} ends in ${sep}, so it names a folder; give the report a file name, such as ${join(folder, 'report.html')}`,
    );
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(`${folder}.partial`)).toBe(false);
  });

  it('--out in a folder that cannot be written: exit 2 naming it, before the report is built', async () => {
    const env = cliEnv(fx);
    // /proc refuses a new file to everyone, root included (the tests may run as root, whom chmod 555 does not stop).
    const refused = await runBvsync(['report', '--db', fx.config.db, '--out', '/proc/report.html'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^bvsync: cannot write in the folder \/proc for --out \/proc\/report\.html: ENOENT .*; give --out a folder you can write$/m,
    );
    // Refused before the database was read: a built report would have printed what it wrote or a warning.
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stdout).toBe('');
    expect(existsSync('/proc/report.html.partial')).toBe(false);
    if (process.getuid?.() !== 0) {
      const locked = join(fx.dir, 'locked');
      mkdirSync(locked);
      chmodSync(locked, 0o555);
      const denied = await runBvsync(['report', '--db', fx.config.db, '--out', join(locked, 'r.html')], env);
      expect(denied.code).toBe(2);
      expect(denied.stderr).toContain(
        `cannot write in the folder ${locked} for --out ${join(locked, 'r.html')}: EACCES`,
      );
      expect(readdirSync(locked)).toEqual([]);
    }
  });

  it('is one self-contained file: the data, d3 and Plot inlined, nothing loaded from elsewhere', () => {
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('id="report-data"');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/i);
    expect(statSync(out).size).toBeLessThan(2_000_000);
  });
});

if (chromiumMissing) console.warn(CHROMIUM_SKIP_REASON);

/**
 * Runs in the page: per chart, the pairs of labels whose boxes overlap (the text of the SVG and the legend's swatches)
 * and the axes that repeat a tick label, each described in a line. A string: this project's TypeScript has no DOM types.
 */
const LABEL_OVERLAPS = `(() => {
  const found = [];
  for (const section of document.querySelectorAll('[data-chart]')) {
    const where = section.dataset.brand + '/' + section.dataset.chart;
    const labels = [...section.querySelectorAll('svg text, .plot div > span')]
      .filter((el) => !el.closest('[aria-label="tip"]') && el.textContent.trim())
      .map((el) => ({ text: el.textContent.trim(), box: el.getBoundingClientRect(), el }));
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        const a = labels[i], b = labels[j];
        if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
        const w = Math.min(a.box.right, b.box.right) - Math.max(a.box.left, b.box.left);
        const h = Math.min(a.box.bottom, b.box.bottom) - Math.max(a.box.top, b.box.top);
        if (w > 1 && h > 1) found.push(where + ': "' + a.text + '" overlaps "' + b.text + '"');
      }
    }
    for (const axis of section.querySelectorAll('svg g[aria-label="x-axis tick label"]')) {
      const ticks = [...axis.querySelectorAll('text')].map((t) => t.textContent);
      if (new Set(ticks).size < ticks.length) found.push(where + ': the x axis repeats a label: ' + ticks.join(' '));
    }
  }
  return found;
})()`;

describe.skipIf(chromiumMissing)("the analysts' report in a browser", () => {
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
    const topics = new Set(brand.weeklyVisibility.map((row) => row.topic)).size;
    // Weekly: a panel per topic; two weeks (the window cuts Friday to Friday) are too few for a line: points only.
    expect(topics).toBeGreaterThan(0);
    expect(await section('weeklyVisibility').getAttribute('data-points-only')).toBe('true');
    expect(await section('weeklyVisibility').locator('svg [aria-label="line"] path').count()).toBe(0);
    expect(await section('weeklyVisibility').locator('svg [aria-label="area"] path').count()).toBe(0);
    expect(await section('weeklyVisibility').locator('svg [aria-label="dot"] circle').count()).toBe(
      brand.weeklyVisibility.length,
    );
    await expect(section('weeklyVisibility').locator('.coverage').innerText()).resolves.toMatch(
      /^Nov 13 – Nov 20, 8 days, [\d,]+ answers; 2 weeks, too few for a line: shown as points$/,
    );
    // Share of voice: one area per series; ownership: one per ownership, the legend in the stacking order.
    expect(await section('shareOfVoice').locator('svg [aria-label="area"] path').count()).toBe(
      new Set(brand.shareOfVoice.map((row) => row.brand)).size,
    );
    const ownershipLabels = [...new Set(brand.citationsByOwnership.map((row) => row.label))];
    expect(await section('citationsByOwnership').locator('svg [aria-label="area"] path').count()).toBe(
      ownershipLabels.length,
    );
    const legend = await section('citationsByOwnership')
      .locator('.plot > figure > div, .plot > div')
      .first()
      .innerText();
    expect(legend.split(/\s*\n\s*|\s{2,}/).filter(Boolean)).toEqual(ownershipLabels);
    // The headline figures the page shows are the ones computed from the views.
    const shown = await section('weeklyVisibility')
      .locator('xpath=ancestor::article//div[@data-figure="visibility"]')
      .getAttribute('data-value');
    expect(Number(shown)).toBe(brand.headline.visibility.value);
    const text = await page.locator(`#brand-${brand.brandId} [data-figure="visibility"] .value`).innerText();
    expect(text).toBe(`${(brand.headline.visibility.value! * 100).toFixed(1)}%`);
    expect(await section('topDomains').locator('svg [aria-label="bar"] rect').count()).toBe(brand.topDomains.length);
    expect(await section('trackedUrls').locator('svg [aria-label="bar"] rect').count()).toBe(brand.trackedUrls.length);
    expect(await section('rankMovers').locator('svg [aria-label="arrow"] path').count()).toBe(brand.rankMovers.length);
    // Competitors' products dashed, the brand's own solid: told apart by the mark, not only by the colour.
    const competitors = brand.rankMovers.filter((mover) => mover.subject !== 'brand').length;
    expect(await section('rankMovers').locator('svg [aria-label="arrow"][stroke-dasharray] path').count()).toBe(
      competitors,
    );
    // No two labels of a chart overlap (ticks, marks' text, legend), and no axis names a day twice: checked on every
    // chart of every brand from the boxes the browser laid out.
    expect(await page.evaluate(LABEL_OVERLAPS)).toEqual([]);
    const header = await page.locator('header').innerText();
    expect(header).toContain(`${FROM} to ${TO}`);
    expect(header).toContain(brand.name!);

    const file = screenshotPath(fx.dir, 'report.png');
    await page.screenshot({ path: file });
    expect(readFileSync(file).subarray(1, 4).toString()).toBe('PNG');
  });

  it('labels a window of three days once per day, with no label over another', async () => {
    const short = join(fx.dir, 'three-days.html');
    await buildReport({ db: fx.config.db, out: short, from: '2026-11-18', to: TO });
    const page = await browser.context.newPage();
    await page.goto(pathToFileURL(short).href);
    await page.waitForFunction('document.body.dataset.rendered === "true"', undefined, { timeout: 15_000 });
    expect(await page.evaluate('document.body.dataset.failures')).toBe('');
    // Before ticks were the chart's days, the axis read "Nov 18 Nov 18 Nov 19 Nov 19 Nov 20" (hourly ticks).
    expect(await page.evaluate(LABEL_OVERLAPS)).toEqual([]);
    const ticks = await page
      .locator('[data-brand="1"][data-chart="shareOfVoice"] svg g[aria-label="x-axis tick label"] text')
      .allTextContents();
    expect(ticks).toEqual(['Nov 18', 'Nov 19', 'Nov 20']);
    await page
      .locator('[data-brand="1"][data-chart="rankMovers"]')
      .screenshot({ path: join(fx.dir, 'report-rank-movers.png') });
  });
});
