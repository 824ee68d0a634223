import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/engine/redis/redis.js';
import { runBvsync } from '../support/engine.js';
import { HAVE_REDIS_SERVER, pings } from '../support/redis-topology.js';
import { until } from '../support/until.js';

/**
 * A frozen Redis accepts connections and never answers. A command's first probe of it (src/engine/redis/redis.ts,
 * `pingRedis`) ends within seconds and says so, where it waited for ever. The server is a real redis-server, SIGSTOPped.
 */

const dir = mkdtempSync(join(tmpdir(), 'bvsync-redis-frozen-'));
let server: ChildProcess;
let url: string;

beforeAll(async () => {
  const port = await freePort();
  url = `redis://127.0.0.1:${port}`;
  server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  await until(`a redis-server to answer at ${url}`, () => pings(url), 20_000);
  process.kill(server.pid!, 'SIGSTOP');
});
afterAll(() => {
  if (server?.pid) {
    process.kill(server.pid, 'SIGCONT');
    server.kill('SIGKILL');
  }
  rmSync(dir, { recursive: true, force: true });
});

describe.concurrent.skipIf(!HAVE_REDIS_SERVER)('a frozen Redis at REDIS_URL (needs redis-server)', () => {
  const env = () => ({
    ...process.env,
    REDIS_URL: url,
    BVSYNC_DB: join(dir, 'bvsync.duckdb'),
    BVSYNC_REDIS_PREFIX: 'redis-frozen',
    BVSYNC_API_URL: 'http://127.0.0.1:9',
    BVSYNC_API_KEY: 'bvk_redis_frozen',
    BVSYNC_BRANDS: '1',
    BVSYNC_CONFIG: '',
  });
  const frozen = /accepted the connection but did not answer within 5 s: frozen, or overloaded/;

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
});
