import { statfsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunProgress } from '../../src/engine/run/start-run.js';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { serveHostMetrics } from '../../src/ops/host-metrics.js';
import type { RunningMetricsServer } from '../../src/ops/metrics-server.js';
import { PrometheusMetrics } from '../../src/ops/prometheus-metrics.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import { engineFixture, scalarOfFile, type EngineFixture } from '../support/engine.js';
import { backfillWithRunningWorkers } from './host-run.js';
import { parseSamples, total, type Sample } from './prometheus-text.js';

/**
 * A worker host with metrics works through a backfill against a simulator that answers some requests with 429 and
 * some with 500, and sends some invalid records; then its /metrics is scraped over HTTP like Prometheus does and the
 * numbers are checked against the simulator's request log and the published database.
 */

let fx: EngineFixture;
let host: WorkerHost;
let server: RunningMetricsServer;
let run: RunProgress;
let samples: Sample[];
let body: string;

beforeAll(async () => {
  // A threshold any process passes: the writer reopens DuckDB after its first commit, which the metrics count.
  fx = await engineFixture('metrics', { config: { sync: { fetchConcurrency: 4 }, warehouse: { reopenAboveMb: 1 } } });
  // 4 a second, well under what four fetches at once send even on a loaded box (at 8 a busy box sometimes sent no 429).
  fx.sim.setKnobs({ rateLimit: 4, retryAfterSeconds: 1, faultRate: 0.05, faultKinds: ['5xx'], invalidShare: 0.05 });
  // The simulator's today is the host's and the metrics' own: freshness ages never depend on the real date.
  const today = () => fx.sim.truth.today();
  const metrics = new PrometheusMetrics({ today });
  host = new WorkerHost({ config: fx.config, redisUrl: fx.redisUrl, log: fx.log, leaseTtlMs: 2_000, metrics, today });
  await host.start();
  server = await serveHostMetrics(host, metrics, { port: 0, host: '127.0.0.1' });
  run = await backfillWithRunningWorkers(fx, {
    streams: ['conversations', 'competitors', 'visibility'],
    from: '2026-11-18',
    to: '2026-11-20',
  });
  const response = await fetch(server.url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  body = await response.text();
  samples = parseSamples(body);
});
afterAll(async () => {
  await server?.close();
  await host?.stop();
  await fx?.cleanup();
});

describe('bvsync metrics, scraped', () => {
  it('the run completed in spite of the faults', () => {
    expect(run.meta.status).toBe('complete');
  });

  it('counts every API request by endpoint template and status, as the simulator saw them', () => {
    const seen = fx.sim.requestLog().filter((entry) => entry.path.startsWith('/customer/v1/'));
    expect(total(samples, 'bvsync_api_requests_total')).toBe(seen.length);
    const conversations = seen.filter(
      (entry) => /\/brands\/\d+\/conversations$/.test(entry.path) && entry.status === 200,
    ).length;
    expect(
      total(samples, 'bvsync_api_requests_total', {
        endpoint: 'GET /customer/v1/brands/{brand_id}/conversations',
        status: '200',
      }),
    ).toBe(conversations);
    // No brand id or other path value becomes a label.
    expect(body).not.toMatch(/brands\/\d/);
  });

  it('counts 429s and the time the fetch queue was paused, retries of 5xx answers', () => {
    const seen = fx.sim.requestLog().filter((entry) => entry.path.startsWith('/customer/v1/'));
    const limited = seen.filter((entry) => entry.status === 429).length;
    expect(limited).toBeGreaterThan(0);
    expect(total(samples, 'bvsync_api_rate_limited_total')).toBe(limited);
    expect(total(samples, 'bvsync_rate_limited_seconds_total')).toBeGreaterThanOrEqual(1);
    const serverErrors = seen.filter((entry) => entry.status >= 500).length;
    expect(serverErrors).toBeGreaterThan(0);
    expect(total(samples, 'bvsync_api_retries_total')).toBeGreaterThan(0);
    expect(total(samples, 'bvsync_api_retries_total')).toBeLessThanOrEqual(serverErrors);
  });

  it('counts rows loaded per table and rejected records, as the database holds them', async () => {
    const conversations = await scalarOfFile(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM conversations');
    expect(total(samples, 'bvsync_rows_loaded_total', { table: 'conversations' })).toBe(conversations);
    const competitors = await scalarOfFile(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM competitors');
    expect(total(samples, 'bvsync_rows_loaded_total', { table: 'competitors' })).toBe(competitors);
    const rejected = await scalarOfFile(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM _rejected_records');
    expect(rejected).toBeGreaterThan(0);
    expect(total(samples, 'bvsync_rows_rejected_total')).toBe(rejected);
  });

  it('times every slice: fetch and commit histograms count each slice once', () => {
    const complete = total(samples, 'bvsync_slice_fetch_duration_seconds_count', { status: 'complete' });
    expect(complete).toBe(run.planned);
    expect(total(samples, 'bvsync_slice_commit_duration_seconds_count')).toBe(run.planned);
    expect(
      total(samples, 'bvsync_slice_fetch_duration_seconds_count', { stream: 'conversations', status: 'complete' }),
    ).toBe(2 * 3);
  });

  it("counts the writer's reopens of DuckDB and the time they took", () => {
    expect(total(samples, 'bvsync_warehouse_reopens_total')).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'bvsync_warehouse_reopen_seconds_total')).toBeGreaterThan(0);
  });

  it('reports queue depths and, from the writer, freshness per brand and stream', () => {
    expect(
      samples.some(
        (sample) =>
          sample.name === 'bvsync_queue_jobs' && sample.labels.queue === 'fetch' && sample.labels.state === 'waiting',
      ),
    ).toBe(true);
    expect(total(samples, 'bvsync_queue_jobs', { queue: 'fetch', state: 'completed' })).toBe(run.planned);
    // Today, 2026-11-20, is still filling up: the newest complete day is the one before it.
    for (const brand of fx.config.brands) {
      expect(total(samples, 'bvsync_freshness_age_days', { brand: String(brand), stream: 'conversations' })).toBe(1);
    }
    // A list read whole is as fresh as the day before its read: it has a series too (src/warehouse/state/complete-through.ts).
    for (const brand of fx.config.brands) {
      expect(total(samples, 'bvsync_freshness_age_days', { brand: String(brand), stream: 'competitors' })).toBe(1);
    }
  });

  it('reports freshness only of the brands and streams the config keeps in step: no stale alert for one taken out', async () => {
    const { brands, sync } = fx.config;
    const streams = sync.streams;
    expect(new Set((await host.freshness()).map((row) => row.brand))).toEqual(new Set(brands));
    try {
      fx.config.brands = [brands[0]!];
      fx.config.sync.streams = ['conversations'];
      expect((await host.freshness()).map((row) => [row.brand, row.stream])).toEqual([[brands[0], 'conversations']]);
    } finally {
      fx.config.brands = brands;
      fx.config.sync.streams = streams;
    }
  });

  it("reports the working file's volume, or the nearest folder's before the file's folder is made", async () => {
    const scrapeDisk = async (db: string) => {
      const served = await serveHostMetrics(host, new PrometheusMetrics(), { port: 0, host: '127.0.0.1', db });
      try {
        const scraped = parseSamples(await (await fetch(served.url)).text());
        return ['bvsync_disk_free_bytes', 'bvsync_disk_size_bytes'].map((name) => scraped.find((s) => s.name === name));
      } finally {
        await served.close();
      }
    };
    const folder = dirname(workingPathFor(fx.config.db));
    const volume = statfsSync(folder);
    const [free, size] = await scrapeDisk(fx.config.db);
    expect(free?.labels.folder).toBe(folder);
    expect(free?.value).toBeGreaterThan(0);
    expect(size).toMatchObject({ labels: { folder }, value: volume.blocks * volume.bsize });
    const [unmade] = await scrapeDisk(join(dirname(fx.config.db), 'not-made', 'bv.duckdb'));
    expect(unmade?.labels.folder).toBe(dirname(fx.config.db));
  });

  it('serves nothing but /metrics and /healthz', async () => {
    expect((await fetch(server.url.replace('/metrics', '/healthz'))).status).toBe(200);
    expect((await fetch(server.url.replace('/metrics', '/other'))).status).toBe(404);
  });

  it('says the interface it listens on, which its url (an address to open) does not for every interface', async () => {
    expect(server.listening).toBe(`127.0.0.1:${server.port}`);
    const everywhere = await serveHostMetrics(host, new PrometheusMetrics(), { port: 0 });
    try {
      // The worker's log had said http://127.0.0.1:9464/metrics of a server every host could reach.
      expect(everywhere.listening).toBe(`0.0.0.0:${everywhere.port}`);
      expect(everywhere.url).toBe(`http://127.0.0.1:${everywhere.port}/metrics`);
    } finally {
      await everywhere.close();
    }
  });
});
