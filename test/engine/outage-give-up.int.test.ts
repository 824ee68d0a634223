import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutageMemo } from '../../src/engine/fetch/outage-memo.js';
import { engineFixture, queryFile, runInProcess, type EngineFixture } from '../support/engine.js';
import { openQueues } from '../../src/engine/jobs/queues.js';
import { testRedis } from '../support/redis.js';
import { until } from '../support/until.js';

/**
 * Once a run gives up on an API that is away, the slices it is reading stop too. Each call in flight had counted the
 * tolerance from its own first unanswered attempt, so they went on asking long after the give-up: against 503s whose
 * Retry-After blocked the key, a run told to wait one minute asked for seven (helper-68's report). Here the API holds
 * every request, and the give-up comes from another process of the run (the outage memo in Redis).
 */

const TODAY = '2026-11-20';
const RUN = 'backfill-outage-give-up';
let fx: EngineFixture;
/** Requests the API held: reached while it hangs. */
let heldRequests = 0;

beforeAll(async () => {
  // Counted by the knobs the request is answered under: one sent before the switch is answered, whenever it gets here.
  const countHeld = ({ unavailable }: { unavailable: string }) => void (unavailable === 'hang' && (heldRequests += 1));
  fx = await engineFixture('outage-give-up', {
    sim: { brands: 1, days: 10, scale: 40, today: TODAY, latencyMs: 5, beforeAnswer: countHeld },
  });
  // Each held request would be waited 20 s for, and tried again.
  Object.assign(fx.config.api, { headersTimeoutMs: 20_000, bodyTimeoutMs: 20_000, maxAttempts: 2 });
  fx.config.sync.outageToleranceMinutes = 10;
});
afterAll(async () => {
  fx?.sim.setKnobs({ unavailable: 'off' });
  await fx?.cleanup();
});

describe('a run that gives up on the API', () => {
  it('stops the slices it is reading at once, and fails them as api_unavailable', async () => {
    const run = runInProcess(fx, {
      kind: 'backfill',
      runId: RUN,
      today: TODAY,
      from: '2026-11-11',
      to: TODAY,
      streams: ['conversations', 'visibility'],
    });
    // Awaited below; should a wait before that fail, the run's end with the fixture's cleanup is no second error.
    run.catch(() => undefined);
    while (fx.sim.requestLog().length < 4) await new Promise((resolve) => setTimeout(resolve, 20));
    fx.sim.setKnobs({ unavailable: 'hang' });
    // Once every slice in flight has a request the API holds, give up as another process of the run would. Slices past
    // the pool's connections wait in the client, never reaching the API.
    const redis = testRedis();
    const queues = openQueues(redis, fx.config.redisPrefix);
    await until(
      'every slice in flight to send a held request',
      async () => heldRequests >= Math.max(1, Math.min(await queues.fetch.getActiveCount(), fx.config.api.connections)),
    );
    const memo = new OutageMemo(redis, fx.config.redisPrefix);
    // Away since now, after the last answer this process had: a process served since reads on (its read ends the outage).
    const now = Date.now();
    await memo.sighted(RUN, 'elsewhere-1', now, now + 700_000);
    await memo.sighted(RUN, 'elsewhere-2', now, now + 700_000);
    await memo.giveUp(RUN, now);
    const gaveUpTime = Date.now();
    const progress = await run;
    await queues.close();
    redis.disconnect();

    expect(progress.meta.status).not.toBe('complete');
    // Held requests are waited for 20 s each and tried again (42 s and 8 more requests before): the slices in flight
    // did not ask again. A slice that had started before the give-up may still send its first request on a busy box.
    const asked = (entry: { path: string; query: unknown }) => `${entry.path} ${JSON.stringify(entry.query)}`;
    const log = fx.sim.requestLog();
    const after = log.filter((entry) => Date.parse(entry.time) > gaveUpTime).map(asked);
    const before = new Set(log.filter((entry) => Date.parse(entry.time) <= gaveUpTime).map(asked));
    expect(after.filter((request) => before.has(request))).toEqual([]);
    expect(new Set(after).size).toBe(after.length);
    // The give-up closed every held request: none was waited out to the client's 20 s headers timeout.
    const held = fx.sim.requestLog().filter((entry) => entry.fault === 'hang');
    expect(held.length).toBeGreaterThan(0);
    expect(held.filter((entry) => entry.durationMs >= fx.config.api.headersTimeoutMs)).toEqual([]);
    const stopped = await queryFile(
      fx.config.db,
      `SELECT error_code, last_error FROM _sync_state WHERE status = 'failed' AND last_error LIKE 'stopped while read:%'`,
    );
    expect(stopped.length).toBeGreaterThan(0);
    expect(new Set(stopped.map((row) => row.error_code))).toEqual(new Set(['api_unavailable']));
  }, 120_000);
});
