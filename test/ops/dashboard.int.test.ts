import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard, type RunningDashboard } from '../../src/ops/dashboard-server.js';
import { openQueues } from '../../src/engine/jobs/queues.js';
import { engineFixture, runInProcess, spawnBvsync, type EngineFixture } from '../support/engine.js';
import { deletePrefix, TEST_REDIS_URL, testRedis, uniquePrefix } from '../support/redis.js';
import {
  chromiumMissing,
  CHROMIUM_SKIP_REASON,
  launchChromium,
  screenshotPath,
  type HeadlessChromium,
} from './browser.js';

/**
 * `bvsync dashboard` in a real headless Chromium: after a small backfill, Bull Board lists bvsync's two queues with
 * their completed jobs, and a screenshot is taken (that of docs/operations.md, when refreshed with BVSYNC_UPDATE_SCREENSHOTS=1).
 */

if (chromiumMissing) console.warn(CHROMIUM_SKIP_REASON);

describe.skipIf(chromiumMissing)('the queue dashboard in a browser', () => {
  let fx: EngineFixture;
  let dashboard: RunningDashboard;
  let browser: HeadlessChromium;

  beforeAll(async () => {
    fx = await engineFixture('dashboard');
    const run = await runInProcess(fx, {
      kind: 'backfill',
      today: '2026-11-20',
      from: '2026-11-19',
      to: '2026-11-20',
      streams: ['conversations', 'competitors'],
    });
    expect(run.meta.status).toBe('complete');
    dashboard = await startDashboard({ redisUrl: fx.redisUrl, prefix: fx.config.redisPrefix, port: 0 });
    browser = await launchChromium({ width: 1100, height: 640 });
  });
  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    await fx?.cleanup();
  });

  it('answers its API with both queues and their job counts', async () => {
    const response = await fetch(new URL('api/queues', dashboard.url));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { queues: Array<{ name: string; counts: Record<string, number> }> };
    const byName = new Map(body.queues.map((queue) => [queue.name, queue]));
    expect([...byName.keys()].sort()).toEqual(['fetch', 'load']);
    expect(byName.get('fetch')!.counts.completed).toBe(2 * 2 + 2);
  });

  it('flags a queue with no worker only while jobs wait in it, not when it is idle between in-process runs', async () => {
    const hasWorkers = async () => {
      const body = (await (await fetch(new URL('api/queues', dashboard.url))).json()) as {
        queues: Array<{ name: string; hasWorkers: boolean | null }>;
      };
      return Object.fromEntries(body.queues.map((queue) => [queue.name, queue.hasWorkers]));
    };
    // The run's in-process workers have left and nothing waits: no "No workers" flag.
    expect(await hasWorkers()).toEqual({ fetch: null, load: null });
    // A job waits and no worker will take it: the flag is kept, it is what `bvsync worker` would fix.
    const redis = testRedis();
    const queues = openQueues(redis, fx.config.redisPrefix);
    try {
      await queues.load.add('plan', { runId: 'nobody-takes-this', phase: 1 }, { jobId: 'nobody-takes-this' });
      expect((await hasWorkers()).load).toBe(false);
      await queues.load.remove('nobody-takes-this');
    } finally {
      await queues.close();
      redis.disconnect();
    }
  });

  it('serves a page that names no other host: no web fonts, system ones', async () => {
    const html = await (await fetch(dashboard.url)).text();
    expect(html).toContain('<div id="root">');
    expect(html).not.toMatch(/(src|href)="https?:\/\//);
    expect(html).not.toContain('fonts.googleapis.com');
  });

  it('loads in Chromium, lists the queues, and is screenshotted', async () => {
    const page = await browser.context.newPage();
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(dashboard.url)) elsewhere.push(request.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const response = await page.goto(dashboard.url, { waitUntil: 'networkidle' });
    expect(response?.status()).toBe(200);
    await expect(page.title()).resolves.toContain('bvsync');
    for (const name of ['fetch', 'load'])
      await page
        .getByRole('link', { name: new RegExp(`^${name}`) })
        .first()
        .waitFor({ timeout: 15_000 });
    // The fetch queue's card: the 6 slices of the run (2 brands x 2 days of conversations, and 2 competitor lists).
    // The cards fill in after the menu links, so the test waits for the text rather than reading it once.
    const fetchCard = /fetch\s[\s\S]*?6 Jobs/;
    await page.waitForFunction(`${fetchCard}.test(document.body.innerText)`, undefined, { timeout: 15_000 });
    expect(await page.locator('body').innerText()).toMatch(fetchCard);
    // A queue's page: its completed slices, each with the worker (host/pid) that ran it.
    await page
      .getByRole('link', { name: /^fetch/ })
      .first()
      .click();
    await page.getByText('Completed', { exact: false }).first().click();
    // The run was worked on in this process, so its jobs were processed by this host and pid.
    await page.getByText(`by ${hostname()}/${process.pid}`).first().waitFor({ timeout: 15_000 });
    await page.waitForLoadState('networkidle');
    expect(page.url()).toContain('/queue/fetch');
    const queuePage = await page.locator('body').innerText();
    expect(queuePage).toContain('one job per slice');
    expect(errors).toEqual([]);
    expect(elsewhere).toEqual([]);
    const file = screenshotPath(fx.dir, 'dashboard.png');
    await page.screenshot({ path: file });
    expect(readFileSync(file).subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('`bvsync dashboard` as built', () => {
  // The bundle inlines bullmq, ioredis and @bull-board/api (scripts/bundle-cli.js); the board still finds its page.
  it('lists both queues and serves the page and its scripts', async () => {
    const prefix = uniquePrefix('dashboard-cli');
    const env = { ...process.env, BVSYNC_CONFIG: '', REDIS_URL: TEST_REDIS_URL, BVSYNC_REDIS_PREFIX: prefix };
    const cli = spawnBvsync(['dashboard', '--port', '0'], env);
    try {
      await cli.waitFor(/"msg":"dashboard listening"/);
      const url = /"url":"([^"]+)"/.exec(cli.output())![1]!;
      const body = (await (await fetch(new URL('api/queues', url))).json()) as { queues: Array<{ name: string }> };
      expect(body.queues.map((queue) => queue.name).sort()).toEqual(['fetch', 'load']);
      const script = /static\/[^"]+\.js/.exec(await (await fetch(url)).text())![0];
      expect((await fetch(new URL(script, url))).status).toBe(200);
    } finally {
      cli.kill();
      await cli.done;
      const redis = testRedis();
      await deletePrefix(redis, prefix);
      redis.disconnect();
    }
  });
});
