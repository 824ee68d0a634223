import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workingPathFor } from '../../src/warehouse/paths.js';
import {
  cliEnv,
  engineFixture,
  runBvsync,
  writeCliConfig,
  type CliResult,
  type EngineFixture,
} from '../support/engine.js';
import { testRedis } from '../support/redis.js';

/**
 * Mistakes an operator makes on the command line, each run as the real command: one clear message naming the
 * problem, a non-zero exit, and nothing touched (no API call, no Redis key, no DuckDB file).
 */

let fx: EngineFixture;
let config: string;

interface Case {
  name: string;
  args: (config: string) => string[];
  env?: Record<string, string>;
  /** What the message must say. */
  message: RegExp;
}

const CASES: Case[] = [
  {
    name: 'a day that does not exist',
    args: (c) => ['backfill', '--from', '2026-02-30', '--config', c],
    message: /--from: "2026-02-30" is not a day; expected YYYY-MM-DD/,
  },
  {
    name: '--from after --to',
    args: (c) => ['backfill', '--from', '2026-11-20', '--to', '2026-11-10', '--config', c],
    message: /--from 2026-11-20 is after --to 2026-11-10/,
  },
  {
    name: 'an unknown stream',
    args: (c) => ['backfill', '--from', '2026-11-19', '--streams', 'conversations,nope', '--config', c],
    message: /unknown stream "nope"; streams: visibility, /,
  },
  {
    name: 'an unknown stream to sync',
    args: (c) => ['sync', '--streams', 'nope', '--config', c],
    message: /unknown stream "nope"/,
  },
  {
    name: 'a stream that reads only ids the config lists, none listed',
    args: (c) => ['backfill', '--from', '2026-11-19', '--streams', 'swot', '--config', c],
    // Before, "complete; 0 rows, 0 requests" and exit 0.
    message:
      /swot plans nothing for brands 1, 2: sync\.swotStatementIds names none of its SWOT statements \(the API lists none: take their ids from the app\); nothing was started/,
  },
  {
    name: '--from in the future without --to',
    args: (c) => ['backfill', '--from', '2099-01-01', '--config', c],
    message: /--from 2099-01-01 is in the future \(today is \d{4}-\d{2}-\d{2}\); there is nothing to fetch yet/,
  },
  {
    name: 'no brands',
    args: (c) => ['backfill', '--from', '2026-11-19', '--config', c],
    env: { BVSYNC_BRANDS: '' },
    message: /no brands to sync: pass --brand ID, set BVSYNC_BRANDS/,
  },
  {
    name: 'a brand that is no id',
    args: (c) => ['sync', '--brand', 'seven', '--config', c],
    message: /"seven" is not a brand id/,
  },
  {
    name: 'a config file that is not JSON',
    args: () => ['backfill', '--from', '2026-11-19', '--config', join(fx.dir, 'broken.json')],
    message: /broken\.json is not a valid bvsync config:\n\s+- not valid JSON/,
  },
  {
    name: 'a config with wrong values',
    args: () => ['sync', '--config', join(fx.dir, 'wrong.json')],
    // Every problem, one per line.
    message:
      /wrong\.json is not a valid bvsync config:\n(?=[\s\S]*^\s+- sync\.lookbackDays: .*expected number)(?=[\s\S]*^\s+- redisPrefix: )/m,
  },
  {
    name: 'a missing config file',
    args: () => ['sync', '--config', join(fx.dir, 'absent.json')],
    message:
      /absent\.json is not a valid bvsync config:\n\s+- cannot read the file: ENOENT \(no such file\); check the path given with -c or BVSYNC_CONFIG/,
  },
  {
    name: 'a lease ttl that is no number',
    args: (c) => ['worker', '--config', c],
    env: { BVSYNC_LEASE_TTL_MS: 'soon' },
    message: /BVSYNC_LEASE_TTL_MS="soon" is not a whole number of milliseconds/,
  },
];

const results = new Map<string, CliResult>();

beforeAll(async () => {
  fx = await engineFixture('cli-errors');
  config = writeCliConfig(fx);
  writeFileSync(join(fx.dir, 'broken.json'), '{ "brands": [1, 2], ');
  writeFileSync(
    join(fx.dir, 'wrong.json'),
    JSON.stringify({ redisPrefix: 'has spaces', sync: { lookbackDays: 'three' } }),
  );
  await Promise.all(
    CASES.map(async (testCase) =>
      results.set(testCase.name, await runBvsync(testCase.args(config), cliEnv(fx, testCase.env))),
    ),
  );
});
afterAll(async () => fx?.cleanup());

describe('command line mistakes', () => {
  it.each(CASES.map((testCase) => [testCase.name, testCase] as const))(
    '%s: one clear message and a non-zero exit',
    (_name, testCase) => {
      const result = results.get(testCase.name)!;
      expect(result.code).not.toBe(0);
      expect(result.code).not.toBeNull();
      expect(result.stderr).toMatch(/^bvsync: /);
      expect(result.stderr).toMatch(testCase.message);
      // The message only: no stack trace, no log lines, nothing on stdout.
      expect(result.stderr).not.toMatch(/^\s+at /m);
      expect(result.stderr.match(/^bvsync: /gm)).toHaveLength(1);
      expect(result.stderr).not.toMatch(/^\{"level"/m);
      expect(result.stdout).toBe('');
    },
  );

  it('names a mistyped required option as unknown, not the required one as missing (commander checked those first)', async () => {
    const mistyped = await runBvsync(
      ['backfill', '--form', '2026-11-18', '--to', '2026-11-20', '--config', config],
      cliEnv(fx),
    );
    expect([mistyped.code, mistyped.stdout]).toEqual([2, '']);
    expect(mistyped.stderr).toMatch(/^error: unknown option '--form'\n\(Did you mean --from\?\)/);
    const missing = await runBvsync(['backfill', '--to', '2026-11-20', '--config', config], cliEnv(fx));
    expect([missing.code, missing.stdout]).toEqual([2, '']);
    expect(missing.stderr).toMatch(/^error: required option '--from <YYYY-MM-DD>' not specified/);
  });

  it('touches nothing: no API call, no Redis key, no DuckDB file', async () => {
    expect(fx.sim.requestLog()).toEqual([]);
    const redis = testRedis();
    try {
      expect(await redis.keys(`${fx.config.redisPrefix}*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }
    expect(existsSync(fx.config.db)).toBe(false);
    expect(existsSync(workingPathFor(fx.config.db))).toBe(false);
  });
});
