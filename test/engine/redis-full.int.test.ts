import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, engineFixture, spawnBvsync, writeCliConfig, type EngineFixture } from '../support/engine.js';
import { HAVE_REDIS_SERVER, startServer, stopAll, type TestServer } from '../support/redis-topology.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';

/**
 * A Redis at its maxmemory under `noeviction` refuses every write (OOM). A backfill stops at the first refusal, says so,
 * and sends one `machine_fault`; once Redis has room, the same command completes the run.
 */

const TODAY = '2026-11-20';

let server: TestServer;
let fx: EngineFixture;

beforeAll(async () => {
  if (!HAVE_REDIS_SERVER) return;
  server = await startServer(['--maxmemory-policy', 'noeviction']);
  fx = await engineFixture('redis-full', { sim: { seed: 6, brands: 1, days: 3, scale: 20, today: TODAY } });
}, 90_000);
afterAll(async () => {
  await fx?.cleanup();
  await stopAll();
});

describe.skipIf(!HAVE_REDIS_SERVER)('a Redis that is full (needs redis-server)', () => {
  it('stops a backfill with exit 1, saying so, and the same command completes once Redis has room', async () => {
    const receiver = await startWebhookReceiver();
    const admin = new Redis(server.url);
    const config = writeCliConfig(fx, {
      notify: { webhooks: [{ url: `${receiver.url}/hook`, events: ['machine_fault'] }] },
    });
    const args = ['backfill', '--from', '2026-11-18', '--to', TODAY, '--config', config];
    const env = cliEnv(fx, { REDIS_URL: server.url });
    try {
      const backfill = spawnBvsync(args, env);
      await backfill.waitFor(/planned/, 60_000);
      await admin.config('SET', 'maxmemory', '1');
      const full = await backfill.done;
      expect(full.code, full.stderr.slice(-2000)).toBe(1);
      expect(full.stderr).toMatch(
        /bvsync: Redis at redis:\/\/127\.0\.0\.1:\d+ is full: it refuses writes past its maxmemory/,
      );
      await receiver.waitFor(1, 30_000);
      expect(receiver.received.map((request) => request.json())).toEqual([
        expect.objectContaining({ event: 'machine_fault', component: 'redis', code: 'redis_full' }),
      ]);

      await admin.config('SET', 'maxmemory', '0');
      const again = await spawnBvsync(args, env).done;
      expect(again.code, again.stderr.slice(-2000)).toBe(0);
      expect(again.stdout).toMatch(/run backfill-\S+: complete/);
    } finally {
      admin.disconnect();
      await receiver.close();
    }
  }, 240_000);
});
