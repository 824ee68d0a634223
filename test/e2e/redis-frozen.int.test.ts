import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBvsync } from '../support/engine.js';
import { HAVE_REDIS_SERVER, startServer, stopAll } from '../support/redis-topology.js';

/**
 * A frozen Redis accepts connections and never answers. A command's first probe of it (src/engine/redis/redis.ts,
 * `pingRedis`) ends within seconds and says so, where it waited for ever. The server is a real redis-server, SIGSTOPped.
 * One that stops answering after the probe (CLIENT PAUSE WRITE: a PING answers, a script waits) ends `status` in 10 s.
 */

const dir = mkdtempSync(join(tmpdir(), 'bvsync-redis-frozen-'));
let url: string;
let pausedUrl: string;

beforeAll(async () => {
  if (!HAVE_REDIS_SERVER) return;
  const frozen = await startServer();
  frozen.freeze();
  url = frozen.url;
  pausedUrl = (await startServer()).url;
  const client = new Redis(pausedUrl);
  await client.call('CLIENT', 'PAUSE', '600000', 'WRITE');
  client.disconnect();
});
afterAll(async () => {
  await stopAll();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!HAVE_REDIS_SERVER)('a frozen Redis at REDIS_URL (needs redis-server)', { concurrent: true }, () => {
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
  const frozen = /did not answer within 5 s: frozen, or overloaded/;

  it.each([['rate'], ['worker'], ['backfill', '--from', '2026-11-19', '--to', '2026-11-19']])(
    '%s stops, saying Redis did not answer (exit 1)',
    async (...args) => {
      const result = await runBvsync(args, env());
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(frozen);
    },
  );

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
});
