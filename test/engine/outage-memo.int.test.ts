import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { connectRedis, deleteKeysWithPrefix } from '../../src/engine/redis/redis.js';
import { OutageMemo, SAME_OUTAGE_MS, processUnansweredSince } from '../../src/engine/fetch/outage-memo.js';
import { RunGaveUpError, watchRun } from '../../src/engine/run/run-cancel-watch.js';
import { KeyAnswers } from '../../src/api/index.js';
import { testAvailability } from '../support/availability.js';
import { TEST_REDIS_URL } from '../support/redis.js';

/** A run's memory of the API being away, in real Redis: one outage across slow calls, ended by an answer. */

const prefix = `bvsync-test-outage-${process.pid}`;
let redis: Redis;
let memo: OutageMemo;

beforeAll(() => {
  redis = connectRedis(TEST_REDIS_URL);
  memo = new OutageMemo(redis, prefix);
});
afterAll(async () => {
  await deleteKeysWithPrefix(redis, prefix);
  redis.disconnect();
});

const MINUTE = 60_000;

describe('the outage memo of a run', () => {
  it('is one outage while each failing call began soon after the last sighting, however long the calls took', async () => {
    // An API that hangs: each call takes ~2.5 minutes (five tries at a 30 s headers timeout), then the queue pauses a minute.
    // Measured from the calls' ends, sightings 3.5 minutes apart began the outage anew every other time.
    let now = 1_000_000;
    const first = await memo.sighted('run-hang', 'a', now - 2.5 * MINUTE, now);
    expect(first).toMatchObject({ since: now - 2.5 * MINUTE, seenAt: now, slices: 1 });
    for (let round = 0; round < 4; round++) {
      const started = now + MINUTE;
      now = started + 2.5 * MINUTE;
      const outage = await memo.sighted('run-hang', round % 2 ? 'a' : 'b', started, now);
      expect(outage.since).toBe(first.since);
      expect(outage.slices).toBe(2);
    }
  });

  it('begins anew for a call that began long after the last sighting, and ends when a slice is read back', async () => {
    await memo.sighted('run-two', 'a', 0, 10);
    const later = await memo.sighted('run-two', 'b', 10 + SAME_OUTAGE_MS, 20 + SAME_OUTAGE_MS);
    expect(later).toMatchObject({ since: 10 + SAME_OUTAGE_MS, slices: 1 });
    await memo.over('run-two');
    expect(await memo.giveUp('run-two', 30 + SAME_OUTAGE_MS)).toBeUndefined();
    expect(await memo.gaveUp('run-two')).toBeUndefined();
  });

  it('is given up on once, for the run alone', async () => {
    await memo.sighted('run-gone', 'a', 0, 5);
    await memo.sighted('run-gone', 'b', 1, 6);
    expect(await memo.giveUp('run-gone', 100)).toMatchObject({ since: 0, slices: 2, gaveUpAt: 100 });
    expect(await memo.giveUp('run-gone', 200)).toMatchObject({ gaveUpAt: 100 });
    expect(await memo.gaveUp('run-gone')).toMatchObject({ gaveUpAt: 100 });
    expect(await memo.gaveUp('run-other')).toBeUndefined();
  });

  it('keeps the cause it was given up on, whatever a later sighting met', async () => {
    await memo.sighted('run-429', 'a', 0, 5, 'rate_limited');
    expect(await memo.giveUp('run-429', 10)).toMatchObject({ cause: 'rate_limited' });
    // A slice in flight meets a 5xx afterwards: the run's failed slices still say what it gave up on.
    expect(await memo.sighted('run-429', 'b', 6, 12)).toMatchObject({ cause: 'rate_limited' });
    await memo.sighted('run-5xx', 'a', 0, 5);
    expect(await memo.sighted('run-5xx', 'b', 1, 6, 'rate_limited')).toMatchObject({ cause: 'rate_limited' });
    expect(await memo.sighted('run-5xx', 'a', 2, 7)).toMatchObject({ cause: undefined });
  });
});

describe('a read watching its run', () => {
  const never = { get: async () => null };
  const settled = (signal: AbortSignal) =>
    new Promise((resolve) => setTimeout(() => resolve(signal.aborted ? signal.reason : undefined), 50));
  /** The availability of a process last served at `at`. */
  const servedAt = (at: number) => {
    const heard = new KeyAnswers();
    heard.observe({ outcome: 'ok', answeredAt: at }, at);
    return testAvailability(redis, prefix, { heard });
  };

  it('stops with a RunGaveUpError once its run gave up, unless its process was served since the outage began', async () => {
    // Away since 1,000, two slices found it so, and the run gave up.
    await memo.sighted('run-w', 'a', 1_000, 2_000);
    await memo.sighted('run-w', 'b', 1_000, 2_000);
    await memo.giveUp('run-w', 2_000);
    const away = watchRun(never, 'run-w', { availability: servedAt(900), everyMs: 10 });
    expect(await settled(away.signal)).toBeInstanceOf(RunGaveUpError);
    away.stop();
    // Served since: its read, answered, ends the outage for the run (`Availability.answered`) instead.
    const served = watchRun(never, 'run-w', { availability: servedAt(1_500), everyMs: 10 });
    expect(await settled(served.signal)).toBeUndefined();
    served.stop();
  });
});

describe('since when the process has heard nothing, for a call that met the API away', () => {
  const tolerance = 2 * MINUTE;
  const now = 10 * MINUTE;

  it("is the call's own measure while no other call of the process was answered since", () => {
    expect(processUnansweredSince(now - 3 * MINUTE, now - 4 * MINUTE, tolerance, now)).toBe(now - 3 * MINUTE);
  });

  it("is the process's last answer when another fetch thread was answered after the call began, longer than the tolerance ago", () => {
    // The call was sent just before the API began to hang; another thread's call was answered a moment later.
    expect(processUnansweredSince(now - 5 * MINUTE, now - 5 * MINUTE + 200, tolerance, now)).toBe(
      now - 5 * MINUTE + 201,
    );
  });

  it('is nothing when another call was answered within the tolerance: the API fails this request, it is not away', () => {
    expect(processUnansweredSince(now - 5 * MINUTE, now - MINUTE, tolerance, now)).toBeUndefined();
  });
});
