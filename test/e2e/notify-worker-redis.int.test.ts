import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivateRedis } from '../reliability/scenarios.js';
import {
  cliEnv,
  engineFixture,
  spawnBvsync,
  writeCliConfig,
  type CliProcess,
  type EngineFixture,
} from '../support/engine.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * A `bvsync worker` whose Redis goes away reconnects for ever, so nothing fails; after BVSYNC_REDIS_OUTAGE_MS it sends
 * one `machine_fault` (component redis).
 */

const HAVE_REDIS_SERVER = PrivateRedis.available();
if (!HAVE_REDIS_SERVER) console.warn('redis-server is not on PATH: the worker Redis-fault test is skipped');

let fx: EngineFixture;
let redis: PrivateRedis;
let receiver: WebhookReceiver;
let worker: CliProcess | undefined;

describe.skipIf(!HAVE_REDIS_SERVER)('a worker whose Redis goes away', () => {
  beforeAll(async () => {
    fx = await engineFixture('notify-worker-redis', { sim: { brands: 1, days: 2 } });
    receiver = await startWebhookReceiver();
    redis = await PrivateRedis.start(false);
  }, 60_000);
  afterAll(async () => {
    worker?.kill('SIGKILL');
    await worker?.done;
    await redis?.stop();
    await receiver?.close();
    await fx?.cleanup();
  });

  it('sends one machine_fault once Redis has not answered for BVSYNC_REDIS_OUTAGE_MS', async () => {
    const config = writeCliConfig(fx, {
      notify: { webhooks: [{ url: `${receiver.url}/hook`, events: ['machine_fault'] }] },
    });
    worker = spawnBvsync(
      ['worker', '--config', config],
      cliEnv(fx, { REDIS_URL: redis.url, BVSYNC_REDIS_OUTAGE_MS: '2000' }),
    );
    await worker.waitFor(/worker started/, 60_000);
    expect(receiver.received).toHaveLength(0);
    await redis.kill();
    await receiver.waitFor(1, 60_000);
    expect(receiver.received[0]!.json()).toMatchObject({
      version: 1,
      event: 'machine_fault',
      component: 'redis',
      code: 'redis_unavailable',
    });
    expect(receiver.received[0]!.json().message).toMatch(/has not answered for \d+ s; the worker keeps trying/);
  }, 120_000);
});
