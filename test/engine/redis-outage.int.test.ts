import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, freePort } from '../../src/engine/redis/redis.js';
import { RedisGoneError, RedisOutageWatch } from '../../src/engine/redis/redis-outage.js';
import { until } from '../support/until.js';
import { PrivateRedis } from '../reliability/scenarios.js';

/**
 * The watch a `sync` or `backfill` waits on its run with: a Redis that answers is waited for, one that is frozen
 * (a paused container: the socket stays open, nothing answers) is given up on after the limit.
 */

const HAVE_REDIS_SERVER = PrivateRedis.available();
let server: ChildProcess;
let dir: string;
let url: string;

beforeAll(async () => {
  if (!HAVE_REDIS_SERVER) return;
  const port = await freePort();
  dir = mkdtempSync(join(tmpdir(), 'bvsync-outage-'));
  server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  url = `redis://127.0.0.1:${port}`;
  const probe = connectRedis(url);
  probe.on('error', () => undefined);
  await until('the private redis-server', async () => (await probe.ping().catch(() => '')) === 'PONG');
  probe.disconnect();
});
afterAll(() => {
  server?.kill('SIGCONT');
  server?.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!HAVE_REDIS_SERVER)('RedisOutageWatch (needs redis-server on PATH)', () => {
  it('waits for a command Redis answers, and gives up on one a frozen Redis never answers', async () => {
    const connection = connectRedis(url);
    connection.on('error', () => undefined);
    const watch = new RedisOutageWatch(connection, url, 1_000);
    try {
      expect(await watch.within('run-1', connection.ping())).toBe('PONG');
      server.kill('SIGSTOP');
      const asked = performance.now();
      const outcome = await watch.within('run-1', connection.get('anything')).catch((error: unknown) => error);
      expect(outcome).toBeInstanceOf(RedisGoneError);
      expect((outcome as Error).message).toMatch(
        /^Redis at redis:\/\/127\.0\.0\.1:\d+\/? has not answered for 1 s \(a command had no answer\); stopped waiting on run run-1\./,
      );
      expect(performance.now() - asked).toBeLessThan(5_000);
    } finally {
      server.kill('SIGCONT');
      watch.stop();
      connection.disconnect();
    }
  });
});
