import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  engineFixture,
  runBvsync,
  writeCliConfig,
  type CliResult,
  type EngineFixture,
} from '../support/engine.js';

/**
 * A backfill against an API that states its limit the way GitHub does (`X-RateLimit-Limit`, and `X-RateLimit-Reset` as
 * a Unix time in seconds) with a token bucket of 10/s: the run summary, `bvsync status` and `bvsync rate` say the
 * rate the key ran at, the limit the API states, and that the headers stated both. Counts and words only, no timing.
 */
const LIMIT = 10;
const LINE =
  /^rate of the API key: 9\.5\/s, stated by X-RateLimit-Limit; limit the API states: 10\/s, stated by X-RateLimit-Limit \(10 per 1 s, the window read from its resets\)$/m;

let fx: EngineFixture;
let backfill: CliResult;

beforeAll(async () => {
  fx = await engineFixture('rate-stated', { sim: { brands: 1, days: 3, scale: 40 } });
  fx.sim.setKnobs({
    rateLimit: LIMIT,
    rateLimitAlgorithm: 'token-bucket',
    rateLimitHeaders: 'x-ratelimit',
    rateLimitReset: 'unix-seconds',
  });
  const config = writeCliConfig(fx, { api: { requestsPerSecond: 4 * LIMIT, retryBaseMs: 5, retryMaxMs: 50 } });
  backfill = await runBvsync(
    ['backfill', '--from', '2026-11-19', '--to', '2026-11-20', '--streams', 'conversations', '--config', config],
    cliEnv(fx),
  );
}, 120_000);

afterAll(async () => {
  await fx?.cleanup();
});

describe('the limit an API states, and the rate the key runs at, where a user looks', () => {
  it('the run summary says both, with the header that stated them; the run met at most one 429', () => {
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(backfill.stdout).toMatch(LINE);
    expect(fx.sim.requestLog().filter((r) => r.status === 429).length).toBeLessThanOrEqual(1);
  });

  it('bvsync status prints the same line, and bvsync rate the limit stated', async () => {
    const config = writeCliConfig(fx, { api: { requestsPerSecond: 4 * LIMIT } });
    const [status, rate] = await Promise.all([
      runBvsync(['status', '--config', config], cliEnv(fx)),
      runBvsync(['rate', '--config', config], cliEnv(fx)),
    ]);
    expect(status.stdout).toMatch(
      /^The rate of the API key: 9\.5\/s, stated by X-RateLimit-Limit; limit the API states: 10\/s, stated by X-RateLimit-Limit/m,
    );
    expect(rate.stdout).toContain(
      'stated           10/s, stated by X-RateLimit-Limit (10 per 1 s, the window read from its resets)\n',
    );
    expect(rate.stdout).toContain('in force now     9.5/s, stated by X-RateLimit-Limit\n');
  });
});
