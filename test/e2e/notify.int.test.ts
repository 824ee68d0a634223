import { addDays } from '../../src/days.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  engineFixture,
  spawnBvsync,
  writeCliConfig,
  type CliResult,
  type EngineFixture,
} from '../support/engine.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * `bvsync sync` tells a webhook of its run's failure: one `run_failed` with the run's id, counts and first errors, sent
 * once though both the command's own worker (the writer, which finalizes) and the command (which waits on the run)
 * may send it. A refused key sends `key_refused`. A webhook that never answers delays the exit by
 * notify.deliverySeconds at most, and the URL is in no output, even at debug level.
 */

const TODAY = '2026-11-20';
const SECRET_PATH = '/hooks/s3cr3t-token-of-the-hook';

let fx: EngineFixture;
let receiver: WebhookReceiver;
let failed: CliResult;

function syncArgs(config: string): string[] {
  return ['sync', '--streams', 'conversations', '--today', TODAY, '--log-level', 'debug', '--config', config];
}

beforeAll(async () => {
  fx = await engineFixture('notify', { sim: { brands: 1, days: 4 }, config: { sync: { lookbackDays: 2 } } });
  receiver = await startWebhookReceiver();
  // Every conversations read is refused 403: each slice fails, so the run fails.
  fx.sim.setKnobs({ refusedPaths: ['conversations'] });
  const config = writeCliConfig(fx, {
    sync: { lookbackDays: 2, startDate: '2026-11-19' },
    notify: { webhooks: [{ url: receiver.url + SECRET_PATH, events: ['run_failed', 'key_refused'] }] },
  });
  failed = await spawnBvsync(syncArgs(config), cliEnv(fx)).done;
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await fx?.cleanup();
});

describe('a sync whose run fails, with a webhook for run_failed', () => {
  it('sends exactly one run_failed, with the run id, its counts and its first errors', () => {
    expect(failed.code, failed.stderr.slice(-2000)).toBe(1);
    const runId = /run (\S+): failed/.exec(failed.stdout)?.[1];
    expect(runId).toBeDefined();
    expect(receiver.received).toHaveLength(1);
    const payload = receiver.received[0]!.json();
    expect(payload).toMatchObject({
      version: 1,
      event: 'run_failed',
      run: { id: runId, kind: 'sync', status: 'failed', streams: ['conversations'] },
      counts: { slices: 2, failed: 2, incomplete: 0 },
    });
    expect(payload.errors).toHaveLength(2);
    expect(payload.errors[0]).toMatchObject({ brand: fx.config.brands[0], stream: 'conversations', code: 'forbidden' });
  });

  it('never prints the webhook URL, at debug level', () => {
    expect(failed.stdout + failed.stderr).toMatch(/"webhook":1/);
    expect(failed.stdout + failed.stderr).not.toContain('s3cr3t-token');
  });
});

describe('a sync whose key the API refuses', () => {
  it('sends key_refused and exits 2, having planned nothing', async () => {
    const before = receiver.received.length;
    const config = writeCliConfig(fx, {
      sync: { startDate: '2026-11-19' },
      notify: { webhooks: [{ url: receiver.url + SECRET_PATH, events: ['run_failed', 'key_refused'] }] },
    });
    const refused = await spawnBvsync(syncArgs(config), cliEnv(fx, { BVSYNC_API_KEY: 'bvk_not_the_right_key' })).done;
    expect(refused.code, refused.stderr.slice(-2000)).toBe(2);
    expect(receiver.received.slice(before).map((request) => request.json().event)).toEqual(['key_refused']);
    expect(receiver.received.at(-1)!.json().message).not.toContain('bvk_not_the_right_key');
  });
});

describe('a webhook that never answers', () => {
  it('delays the exit of a failed run by notify.deliverySeconds at most', async () => {
    const silent = await startWebhookReceiver(() => 'hang');
    try {
      const config = writeCliConfig(fx, {
        sync: { startDate: '2026-11-19' },
        notify: { deliverySeconds: 2, webhooks: [{ url: silent.url + SECRET_PATH, events: ['run_failed'] }] },
      });
      const sync = spawnBvsync(syncArgs(config), cliEnv(fx));
      await silent.waitFor(1);
      const asked = performance.now();
      const result = await sync.done;
      expect(result.code).toBe(1);
      // 2 s of delivery, then closing; without the bound the command waits on the webhook for good.
      expect(performance.now() - asked).toBeLessThan(8_000);
      expect(result.stderr).toMatch(/could not notify the webhook/);
    } finally {
      await silent.close();
    }
  });
});

describe('a sync whose Redis does not answer', () => {
  it("sends machine_fault (component redis), without the Redis URL's password", async () => {
    const before = receiver.received.length;
    const config = writeCliConfig(fx, {
      notify: { webhooks: [{ url: receiver.url + SECRET_PATH, events: ['machine_fault'] }] },
    });
    const result = await spawnBvsync(
      syncArgs(config),
      cliEnv(fx, { REDIS_URL: 'redis://:redis-password-1@127.0.0.1:1' }),
    ).done;
    expect(result.code).toBe(1);
    const notices = receiver.received.slice(before).map((request) => request.json());
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      version: 1,
      event: 'machine_fault',
      component: 'redis',
      code: 'redis_unavailable',
    });
    expect(receiver.received.at(-1)!.body).not.toContain('redis-password-1');
  });
});

describe('a sync that completes on data older than notify.staleAfterHours', () => {
  it("sends stale for the run's brand and stream whose newest complete day is too old", async () => {
    fx.sim.setKnobs({ refusedPaths: [] });
    const before = receiver.received.length;
    // The command's today (BVSYNC_TODAY) two days after the simulator's: TODAY is complete and more than 24 h old.
    const config = writeCliConfig(fx, {
      sync: { startDate: '2026-11-19' },
      notify: { staleAfterHours: 24, webhooks: [{ url: receiver.url + SECRET_PATH, events: ['stale', 'run_failed'] }] },
    });
    const result = await spawnBvsync(
      ['sync', '--streams', 'visibility', '--today', TODAY, '--config', config],
      cliEnv(fx, { BVSYNC_TODAY: addDays(TODAY, 2) }),
    ).done;
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    const notices = receiver.received.slice(before).map((request) => request.json());
    expect(notices.map((notice) => notice.event)).toEqual(['stale']);
    expect(notices[0]).toMatchObject({
      staleAfterHours: 24,
      stale: [{ brand: fx.config.brands[0], stream: 'visibility', newestCompleteDay: TODAY }],
    });
  });
});
