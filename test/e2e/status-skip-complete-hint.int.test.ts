import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/days.js';
import { runToEnd } from '../../src/engine/run/start-run.js';
import {
  cliEnv,
  engineFixture,
  runBvsync,
  writeCliConfig,
  type CliResult,
  type EngineFixture,
} from '../support/engine.js';
import { parseConfig, type Config } from '../../src/configuration.js';

/**
 * `bvsync status` advises the `backfill --skip-complete` that reads again the day slices not complete, and names only
 * those a backfill still plans: a failed slice of a domain out of `sync.domains`, or of an engine out of
 * `sync.engineBreakdown`, is never read again, and advised, it kept the advice for good. The advice names the streams
 * (and the brands, when not all) that have them, or the backfill would read every window stream again in full. The
 * simulator's today is the backfills' and the commands' (BVSYNC_TODAY).
 */

const TODAY = '2026-11-20';
const day = (back: number) => addDays(TODAY, -back);
const STREAMS = ['competitors', 'tracked_urls', 'domain_details', 'visibility_by_engine', 'citations'];
const FAILING = ['domain_details', 'visibility_by_engine'];
/** What the config planned when day 1 back failed, and what it plans now: a domain and an engine fewer. */
const BEFORE = { streams: STREAMS, domains: ['gone.example'], engineBreakdown: ['chatgpt', 'perplexity'] };
const NOW = { streams: STREAMS, domains: [], engineBreakdown: ['chatgpt'] };
const HINT_END = 'reads again only the slices of those streams and days not complete (those the config still plans)';

let fx: EngineFixture;
const configOf = (sync: Record<string, unknown>, apiKey = fx.sim.apiKey): Config =>
  parseConfig({
    api: { ...fx.config.api, apiKey },
    brands: fx.config.brands,
    db: fx.config.db,
    redisPrefix: fx.config.redisPrefix,
    sync,
  });
const backfill = (config: Config, options: { from: string; to: string; brands: number[]; streams: string[] }) =>
  runToEnd({
    config,
    redisUrl: fx.redisUrl,
    log: fx.log,
    kind: 'backfill',
    today: TODAY,
    worker: { leaseTtlMs: 2_000, today: () => TODAY },
    ...options,
  });
const status = (sync: Record<string, unknown>, json = false) =>
  runBvsync(['status', ...(json ? ['--json'] : []), '--config', writeCliConfig(fx, { sync })], cliEnv(fx));
/** The backfill a status output advises, as printed. */
const advised = (result: CliResult) => /^(bvsync backfill .*--skip-complete) reads again/m.exec(result.stdout)?.[1];

let statusNow: CliResult;
let statusBefore: CliResult;
let json: Record<string, unknown>;
let followed: CliResult;
let followedPaths: string[];
let statusAfter: CliResult;
let jsonAfter: Record<string, unknown>;

beforeAll(async () => {
  fx = await engineFixture('status-skip-complete-hint', { sim: { brands: 2, days: 6, scale: 20, today: TODAY } });
  const brands = fx.config.brands;
  // Days 3 and 2 back load complete, the window of citations with them.
  expect((await backfill(configOf(BEFORE), { from: day(3), to: day(2), brands, streams: STREAMS })).meta.status).toBe(
    'complete',
  );
  // Day 1 back fails for both brands (a key the API refuses), every domain and engine the config then planned.
  expect(
    (await backfill(configOf(BEFORE, 'bvk_not_the_right_key'), { from: day(1), to: day(1), brands, streams: FAILING }))
      .meta.status,
  ).toBe('failed');
  // Brand 1 reads day 1 back again under the config of now: what it still plans completes, the domain and engine gone stay failed.
  expect(
    (await backfill(configOf(NOW), { from: day(1), to: day(1), brands: [brands[0]!], streams: FAILING })).meta.status,
  ).toBe('complete');
  statusNow = await status(NOW);
  statusBefore = await status(BEFORE);
  json = JSON.parse((await status(NOW, true)).stdout) as Record<string, unknown>;
  const command = advised(statusNow);
  expect(command, statusNow.stdout).toBeDefined();
  const since = fx.sim.requestLog().length;
  followed = await runBvsync(
    [...command!.split(' ').slice(1), '--config', writeCliConfig(fx, { sync: NOW })],
    cliEnv(fx),
  );
  followedPaths = fx.sim
    .requestLog()
    .slice(since)
    .map((entry) => entry.path);
  statusAfter = await status(NOW);
  jsonAfter = JSON.parse((await status(NOW, true)).stdout) as Record<string, unknown>;
}, 240_000);
afterAll(async () => fx?.cleanup());

describe('status advises the backfill --skip-complete of the slices a backfill still plans', () => {
  it('names the streams with slices not complete, and the brand that has them, not every window stream', () => {
    expect(statusNow.code, statusNow.stderr).toBe(0);
    const [one, two] = fx.config.brands;
    expect(advised(statusNow)).toBe(
      `bvsync backfill --brand ${two} --streams domain_details,visibility_by_engine --from ${day(1)} --to ${day(1)} --skip-complete`,
    );
    expect(statusNow.stdout).toContain(`${advised(statusNow)} ${HINT_END}`);
    // Brand 1 has failed slices too, of the domain and the engine the config no longer plans: no backfill reads them.
    const listed = (json.slicesNotComplete as Array<{ brand: number; slice: string; status: string }>).filter(
      (row) => row.brand === one,
    );
    expect(listed.map((row) => [row.slice, row.status]).sort()).toEqual([
      [`gone.example/${day(1)}`, 'failed'],
      [`perplexity/${day(1)}`, 'failed'],
    ]);
    // Under the config that planned them, they count, for both brands.
    expect(advised(statusBefore)).toBe(
      `bvsync backfill --streams domain_details,visibility_by_engine --from ${day(1)} --to ${day(1)} --skip-complete`,
    );
  });

  it('says the same in --json', () => {
    const [, two] = fx.config.brands;
    // Brand 2's slices of day 1 back, less those of the domain and the engine gone.
    const planned = (json.slicesNotComplete as Array<{ brand: number; slice: string }>).filter(
      (row) => row.brand === two && !/^(gone\.example|perplexity)\//.test(row.slice),
    );
    expect(json.slicesNotCompleteDays).toEqual({
      first: day(1),
      last: day(1),
      brands: [two],
      streams: ['domain_details', 'visibility_by_engine'],
      slices: planned.length,
      command: advised(statusNow),
    });
    expect(planned.length).toBeGreaterThan(2);
  });

  it('is a backfill that reads only those streams and days, and ends complete', () => {
    expect(followed.code, followed.stderr).toBe(0);
    expect(followedPaths.some((path) => path.endsWith('/reports/citations'))).toBe(false);
    expect(followedPaths.some((path) => path.includes('/citations/domains/'))).toBe(true);
  });

  it('is not advised once it ran, though the slices of the domain and the engine no longer planned stay failed', () => {
    expect(statusAfter.code, statusAfter.stderr).toBe(0);
    expect(statusAfter.stdout).not.toContain('--skip-complete');
    expect(statusAfter.stdout).toContain(`gone.example/${day(1)}`);
    expect(statusAfter.stdout).toContain(`perplexity/${day(1)}`);
    expect(jsonAfter.slicesNotCompleteDays).toBeNull();
    // The domain's and the engine's slices of day 1 back, of both brands: listed, and said to be read by no backfill.
    expect(jsonAfter.slicesNotCompleteTotal).toBe(4);
    expect(jsonAfter.slicesNoLongerPlanned).toBe(4);
    expect(statusAfter.stdout).toContain(
      '4 day slice(s) not complete are of a series a backfill of their days no longer plans (a domain, topic or engine gone, or a setting changed): the advised backfill does not read them',
    );
    // Before that backfill too: the domain's and the engine's of both brands, beside brand 2's advised ones.
    expect(json.slicesNoLongerPlanned).toBe(4);
  });
});
