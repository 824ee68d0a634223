import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { readRateLimitHeaders } from '../../src/api/rate/rate-headers.js';
import { RATE_HEADROOM, createRedisRateBudget, keyHash } from '../../src/api/rate/rate-budget.js';
import { RedisRateGate } from '../../src/api/rate/rate-gate.js';
import { RedisRateStateStore } from '../../src/api/rate/rate-state-store.js';
import { redisKeys } from '../../src/redis-keys.js';
import { runBvsync, type CliResult } from '../support/engine.js';
import { deletePrefix, testRedis, TEST_REDIS_URL, uniquePrefix } from '../support/redis.js';
import { tempDir } from '../support/tmp.js';

/**
 * `bvsync rate` and the rate line of `bvsync status`, run as the real CLI against a rate state written through the
 * real store: what the key learned is shown (rate in force, limit, confirmed, last cut, expiry), `--reset` forgets it
 * and only it, and the API key never appears in what is printed.
 */

const prefix = uniquePrefix('cli-rate');
const redis = testRedis();
const keys = redisKeys(prefix);
const dir = tempDir('cli-rate');
// A key that would be seen if any output printed it, or its hash.
const API_KEY = `bvk_secret_${randomUUID()}`;
const HASH = keyHash(API_KEY);
const store = new RedisRateStateStore(redis, keys, HASH);
const DAY_MS = 24 * 3_600_000;

/** Learned from 429s and confirmed, at the plateau (95 % of the limit): it stays 4.75/s for five minutes. */
function learnedState(now = Date.now()) {
  return { rate: 4.75, at: now, phase: 'steady' as const, limit: 5, cutAt: now - 1_000, confirmed: true };
}

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    BVSYNC_CONFIG: '',
    BVSYNC_API_KEY: API_KEY,
    BVSYNC_REDIS_PREFIX: prefix,
    REDIS_URL: TEST_REDIS_URL,
    // status reads freshness from it; none there, so it says so and reads Redis alone.
    BVSYNC_DB: join(dir.path, 'none.duckdb'),
    BVSYNC_LOG_LEVEL: 'silent',
    ...extra,
  };
}

async function bvsync(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  const result = await runBvsync(args, env(extra));
  // Whatever it printed, the key is not in it: only the rate facts are.
  for (const output of [result.stdout, result.stderr]) {
    expect(output).not.toContain(API_KEY);
    expect(output).not.toContain(HASH);
  }
  return result;
}

async function rateJson(
  args: string[] = [],
): Promise<Record<string, unknown> & { learned: Record<string, unknown> | null }> {
  const result = await bvsync(['rate', '--json', ...args]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown> & { learned: Record<string, unknown> | null };
}

beforeEach(async () => {
  await deletePrefix(redis, prefix);
});

afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis.disconnect();
  dir.remove();
});

describe('bvsync rate', () => {
  it('with nothing stored: the key runs at its configured rate, paced at the headroom', async () => {
    const [text, json] = await Promise.all([bvsync(['rate']), rateJson()]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('configured    10/s (api.requestsPerSecond; reads pace at 95 % of it: 9.5/s)');
    expect(text.stdout).toContain('in force now  9.5/s (the configured rate): nothing learned is stored');
    expect(text.stdout).not.toContain('--reset');
    expect(text.stdout).toContain('stated        nothing (the API stated no limit in the headers of the runs stored)');
    expect(json).toEqual({
      redisPrefix: prefix,
      configured: 10,
      ceiling: 10 * RATE_HEADROOM,
      rateNow: 10 * RATE_HEADROOM,
      rateSource: 'configured (api.requestsPerSecond)',
      stated: null,
      learned: null,
      heldBackMs: 0,
    });
    // Reading wrote nothing: a budget's read would have written the initial state.
    expect(await redis.exists(keys.rateState(HASH))).toBe(0);
  });

  it('a learned state: the rate in force, the estimated limit, confirmed, when it was cut and when it expires', async () => {
    const state = learnedState();
    await store.compareAndSet(0, state);
    const [text, json] = await Promise.all([bvsync(['rate']), rateJson()]);
    expect(text.code, text.stderr).toBe(0);
    const cut = new Date(state.cutAt).toISOString();
    expect(text.stdout).toContain('in force now     4.75/s, learned from 429s\n');
    expect(text.stdout).toContain('phase            steady\n');
    expect(text.stdout).toContain('estimated limit  5/s\n');
    expect(text.stdout).toContain('confirmed        yes');
    expect(text.stdout).toContain(`last cut         ${cut}\n`);
    // The state's key lives a day from its write: a child answering within the second reads it rounded up to 1d.
    expect(text.stdout).toMatch(/expires +\S+Z \(in (23h 59m \d\ds|1d 00h 00m), unless a 429 changes it first\)/);
    expect(text.stdout).toContain(
      'bvsync rate --reset forgets it: the next request runs at 9.5/s (the configured rate)',
    );
    expect(json).toMatchObject({
      configured: 10,
      ceiling: 9.5,
      rateNow: 4.75,
      heldBackMs: 0,
      learned: { phase: 'steady', limit: 5, confirmed: true, lastCutAt: cut },
    });
    const expiresInMs = Date.parse(json.learned!.expiresAt as string) - Date.now();
    expect(expiresInMs).toBeGreaterThan(DAY_MS - 60_000);
    expect(expiresInMs).toBeLessThanOrEqual(DAY_MS);
  });

  it('a rate the API stated: the limit, the header that stated it, and the rate the key runs at', async () => {
    const budget = createRedisRateBudget({
      redis,
      apiKey: API_KEY,
      prefix,
      requestsPerSecond: 40,
      headroom: RATE_HEADROOM,
    });
    const reset = String(Math.ceil(Date.now() / 1000) + 1);
    await budget.observe({
      status: 200,
      sentAt: Date.now(),
      signals: readRateLimitHeaders({
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': '9',
        'x-ratelimit-reset': reset,
      }),
    });
    await budget.close?.();
    const [text, json] = await Promise.all([bvsync(['rate']), rateJson()]);
    expect(text.stdout).toContain(
      'stated           10/s, stated by X-RateLimit-Limit (10 per 1 s, the window read from its resets)\n',
    );
    expect(text.stdout).toContain('in force now     9.5/s, stated by X-RateLimit-Limit\n');
    expect(json).toMatchObject({
      rateNow: 9.5,
      rateSource: 'stated by X-RateLimit-Limit',
      stated: { perSecond: 10, by: 'X-RateLimit-Limit', windowKnown: false },
    });
  });

  it('a state a 429 taught a real budget: below the ceiling, limit estimated, not confirmed', async () => {
    const budget = createRedisRateBudget({
      redis,
      apiKey: API_KEY,
      prefix,
      requestsPerSecond: 10,
      headroom: RATE_HEADROOM,
    });
    await budget.acquire();
    // Nothing counted as accepted: the cut is by 30 %, and the limit estimated is the rate in force, 9.5/s.
    await budget.observe({ status: 429, sentAt: Date.now() });
    await budget.close?.();
    const json = await rateJson();
    expect(json.rateNow as number).toBeLessThan(9.5);
    expect(json.learned).toMatchObject({ phase: 'steady', limit: 9.5, confirmed: false });
  });

  it('--reset removes the learned state and only it: the next read, and the next budget, start from the configured rate', async () => {
    await store.compareAndSet(0, learnedState());
    const gate = new RedisRateGate(redis, keys, HASH);
    await gate.blockFor(60_000);
    const reset = await bvsync(['rate', '--reset']);
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(
      /^removed the learned rate of the API key \(Redis prefix \S+\): 4\.75\/s in force, limit 5\/s estimated, confirmed, last cut \S+Z$/m,
    );
    expect(reset.stdout).toContain('the next request runs at 9.5/s (the configured rate)');
    expect(reset.stdout).toMatch(
      /the key stays held back \d+(\.\d)? s more by the API's Retry-After: --reset leaves the API's own block/,
    );
    expect(await redis.exists(keys.rateState(HASH))).toBe(0);
    expect(await gate.blockedMs()).toBeGreaterThan(0);

    const after = await rateJson();
    expect(after).toMatchObject({ rateNow: 9.5, learned: null });
    expect(after.heldBackMs as number).toBeGreaterThan(0);

    // A budget of a run reads no state and starts afresh at the ceiling, nothing learned.
    await redis.del(keys.rateBlock(HASH));
    const budget = createRedisRateBudget({
      redis,
      apiKey: API_KEY,
      prefix,
      requestsPerSecond: 10,
      headroom: RATE_HEADROOM,
    });
    await budget.acquire();
    await budget.close?.();
    expect((await store.inspect())?.state).toMatchObject({ rate: 9.5, phase: 'steady', limit: 0, cutAt: 0 });
  });

  it('--reset --json: one object, what was removed beside the rate now; a second reset removes nothing', async () => {
    await store.compareAndSet(0, learnedState());
    const first = await rateJson(['--reset']);
    expect(first).toMatchObject({
      rateNow: 9.5,
      learned: null,
      removed: { limit: 5, confirmed: true, phase: 'steady' },
    });
    const second = await rateJson(['--reset']);
    expect(second).toMatchObject({ rateNow: 9.5, learned: null, removed: null });
    const text = await bvsync(['rate', '--reset']);
    expect(text.stdout).toContain('nothing to reset: no learned rate is stored for the API key');
  });

  it('auto with nothing stored starts at 2/s; without an API key it says which setting is missing', async () => {
    const [auto, keyless] = await Promise.all([
      runBvsync(['rate', '--json'], env({ BVSYNC_CONFIG: writeConfig({ api: { requestsPerSecond: 'auto' } }) })),
      runBvsync(['rate'], env({ BVSYNC_API_KEY: '' })),
    ]);
    expect(auto.code, auto.stderr).toBe(0);
    expect(JSON.parse(auto.stdout)).toMatchObject({ configured: 'auto', ceiling: 10_000, rateNow: 2, learned: null });
    expect(keyless.code).toBe(2);
    expect(keyless.stderr).toContain('no API key configured (api.apiKey, or BVSYNC_API_KEY)');
  });
});

describe('bvsync status: the learned rate', () => {
  it('a line saying how to reset it while the key runs below its ceiling, and the rate in --json', async () => {
    await store.compareAndSet(0, learnedState());
    const [text, json] = await Promise.all([bvsync(['status']), bvsync(['status', '--json'])]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /^The API key runs at 4\.75\/s of its 9\.5\/s, learned from 429s and kept until \S+Z: bvsync rate --reset resets it$/m,
    );
    expect(JSON.parse(json.stdout).rate).toMatchObject({
      configured: 10,
      ceiling: 9.5,
      rateNow: 4.75,
      learned: { limit: 5, confirmed: true },
    });
  });

  it('no line at the configured rate; `rate` null once nothing is stored', async () => {
    // Stored, as every run without a 429 leaves it: nothing learned, the ceiling in force.
    const now = Date.now();
    await store.compareAndSet(0, { rate: 9.5, at: now, phase: 'steady', limit: 0, cutAt: 0 });
    const [text, json] = await Promise.all([bvsync(['status']), bvsync(['status', '--json'])]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toContain('bvsync rate');
    expect(JSON.parse(json.stdout).rate).toMatchObject({ rateNow: 9.5, learned: { limit: null } });
    await store.remove();
    const none = await bvsync(['status', '--json']);
    expect(JSON.parse(none.stdout)).toHaveProperty('rate', null);
  });
});

function writeConfig(config: Record<string, unknown>): string {
  const path = join(dir.path, `config-${randomUUID().slice(0, 8)}.json`);
  writeFileSync(path, JSON.stringify(config));
  return path;
}
