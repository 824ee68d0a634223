import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDashboard } from '../../src/ops/dashboard-server.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { runBvsync, spawnBvsync } from '../support/engine.js';
import { HAVE_REDIS_SERVER, startServer, stopAll } from '../support/redis-topology.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

/**
 * A frozen Redis accepts connections and never answers. A command's first probe of it (src/engine/redis/redis.ts,
 * `pingRedis`) ends within seconds and says so, where it waited for ever. The server is a real redis-server, SIGSTOPped.
 * One that stops answering after the probe (CLIENT PAUSE WRITE: a PING answers, a script waits) ends `status` and `sync --enqueue-only` in 10 s.
 * A worker whose Redis freezes later says so, and sends a `machine_fault`, from its PING each second.
 */

const dir = mkdtempSync(join(tmpdir(), 'bvsync-redis-frozen-'));
let url: string;
let pausedUrl: string;
let sim: RunningSimulator;

beforeAll(async () => {
  if (!HAVE_REDIS_SERVER) return;
  const frozen = await startServer();
  frozen.freeze();
  url = frozen.url;
  pausedUrl = (await startServer()).url;
  const client = new Redis(pausedUrl);
  await client.call('CLIENT', 'PAUSE', '600000', 'WRITE');
  client.disconnect();
  sim = await startSimulator({ seed: 3, brands: 1, days: 2, scale: 5, today: '2026-11-20' });
});
afterAll(async () => {
  await sim?.close();
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
});

const env = (redisUrl = url) => ({
  ...process.env,
  REDIS_URL: redisUrl,
  BVSYNC_DB: join(dir, 'bvsync.duckdb'),
  BVSYNC_REDIS_PREFIX: 'redis-frozen',
  BVSYNC_API_URL: 'http://127.0.0.1:9',
  BVSYNC_API_KEY: 'bvk_redis_frozen',
  BVSYNC_BRANDS: '1',
  BVSYNC_CONFIG: '',
});

describe.skipIf(!HAVE_REDIS_SERVER)('a frozen Redis at REDIS_URL (needs redis-server)', { concurrent: true }, () => {
  const frozen = /did not answer within 5 s: frozen, or overloaded/;

  it.each([['rate'], ['worker'], ['backfill', '--from', '2026-11-19', '--to', '2026-11-19']])(
    '%s stops, saying Redis did not answer (exit 1)',
    async (...args) => {
      const result = await runBvsync(args, env());
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(frozen);
    },
  );

  it('plan takes its rate budget alone, in 5 s, and goes on to the API', async () => {
    const result = await runBvsync(['plan', 'examples/brand-1.yaml'], env());
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/ECONNREFUSED 127\.0\.0\.1:9; nothing was written/);
  });

  it('status shows the file, says Redis did not answer, and exits 1', async () => {
    const result = await runBvsync(['status'], env());
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(frozen);
    expect(result.stdout).toContain('Recent runs (from _sync_runs: Redis did not answer)');
  });

  it('status on a Redis that answers PING but not its scripts shows the file, says so in 10 s, and exits 1', async () => {
    const result = await runBvsync(['status'], env(pausedUrl));
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/did not answer within 10 s: frozen, or overloaded/);
    expect(result.stdout).toContain('Recent runs (from _sync_runs: Redis did not answer)');
  });

  it('sync --enqueue-only on a Redis that answers PING but not its scripts stops in 10 s (exit 1)', async () => {
    const api = { BVSYNC_API_URL: sim.url, BVSYNC_API_KEY: sim.apiKey, BVSYNC_TODAY: '2026-11-20' };
    const result = await runBvsync(['sync', '--enqueue-only'], { ...env(pausedUrl), ...api });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/did not answer within 10 s: frozen, or overloaded/);
  });
});

describe.skipIf(!HAVE_REDIS_SERVER)('a worker whose Redis freezes after it started (needs redis-server)', () => {
  it('says Redis stopped answering, sends one machine_fault, and stops on SIGTERM without waiting for jobs', async () => {
    const server = await startServer();
    const receiver = await startWebhookReceiver();
    const config = join(dir, 'worker.json');
    const hook = { url: `${receiver.url}/hook`, events: ['machine_fault'] };
    writeFileSync(config, JSON.stringify({ notify: { webhooks: [hook] } }));
    const worker = spawnBvsync(['worker', '--fetch-only', '--shutdown-seconds', '600'], {
      ...env(server.url),
      BVSYNC_CONFIG: config,
      BVSYNC_REDIS_OUTAGE_MS: '1000',
    });
    try {
      await worker.waitFor(/worker started/, 60_000);
      server.freeze();
      await worker.waitFor(/redis did not answer a PING within 5 s: frozen, or overloaded; jobs wait/, 60_000);
      await receiver.waitFor(1, 60_000);
      expect(receiver.received[0]!.json()).toMatchObject({ event: 'machine_fault', component: 'redis' });
      worker.kill('SIGTERM');
      // With --shutdown-seconds 600, a stop that waited for jobs would outlast the test's own limit.
      const result = await worker.done;
      expect(result.code, result.stderr).toBe(1);
      expect(worker.output()).toContain('could not stop cleanly (is Redis answering?)');
      expect(receiver.received).toHaveLength(1);
    } finally {
      worker.kill('SIGKILL');
      await receiver.close();
    }
  }, 120_000);
});

describe.skipIf(!HAVE_REDIS_SERVER)('a dashboard whose Redis freezes (needs redis-server)', () => {
  it('answers a request for the queues with an error in 10 s, rather than never', async () => {
    const server = await startServer();
    const dashboard = await startDashboard({ redisUrl: server.url, prefix: 'redis-frozen-board', port: 0 });
    try {
      expect((await fetch(`${dashboard.url}api/queues`)).status).toBe(200);
      server.freeze();
      expect((await fetch(`${dashboard.url}api/queues`)).status).toBeGreaterThanOrEqual(500);
    } finally {
      await dashboard.close();
    }
  }, 60_000);
});
