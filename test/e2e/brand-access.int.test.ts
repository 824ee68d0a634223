import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runBvsync,
  runInProcess,
  writeCliConfig,
  type CliResult,
  type EngineFixture,
} from '../support/engine.js';

/**
 * A brand the API key may not read, configured beside one it may: that brand's slices fail alone with the API's
 * `brand_access_denied`, the other brand completes, and the command says so with a non-zero exit.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-19';
const STREAMS = ['conversations', 'visibility', 'competitors'];

let fx: EngineFixture;
let forbidden: number;
let backfill: CliResult;

beforeAll(async () => {
  fx = await engineFixture('brand-access');
  forbidden = fx.sim.forbiddenBrand;
  const env = cliEnv(fx, { BVSYNC_BRANDS: `1,${forbidden}` });
  backfill = await runBvsync(
    [
      'backfill',
      '--from',
      FROM,
      '--to',
      TODAY,
      '--today',
      TODAY,
      '--streams',
      STREAMS.join(','),
      '--config',
      writeCliConfig(fx),
    ],
    env,
  );
});
afterAll(async () => fx?.cleanup());

describe('a forbidden brand beside a readable one', () => {
  it('exits non-zero, saying which slices failed', () => {
    expect(backfill.code, backfill.stderr.slice(-2000)).toBe(1);
    expect(backfill.stdout).toMatch(/: incomplete;.* [1-9]\d* failed/);
  });

  it('records brand_access_denied on every slice of the forbidden brand, and completes the other', async () => {
    const states = await queryFile(
      fx.config.db,
      'SELECT brand_id, status, error_code, count(*)::INTEGER AS slices FROM _sync_state GROUP BY ALL ORDER BY ALL',
    );
    // Two days of conversations and visibility, and the competitors, for each brand.
    expect(states).toEqual([
      { brand_id: 1, status: 'complete', error_code: null, slices: 5 },
      { brand_id: forbidden, status: 'failed', error_code: 'brand_access_denied', slices: 5 },
    ]);
    const [conversations] = await queryFile(
      fx.config.db,
      'SELECT count(*) FILTER (WHERE brand_id = 1)::INTEGER AS readable, count(*) FILTER (WHERE brand_id <> 1)::INTEGER AS other FROM conversations',
    );
    expect(conversations!.readable).toBe(fx.sim.truth.totalRows(1, FROM, TODAY));
    expect(conversations!.other).toBe(0);
    const [run] = await queryFile(fx.config.db, 'SELECT status, errors::INTEGER AS errors FROM _sync_runs');
    expect(run).toEqual({ status: 'incomplete', errors: 5 });
  });

  it("fails fast: one request for the forbidden brand (the preflight's), none per slice", () => {
    const denied = fx.sim.requestLog().filter((entry) => entry.path.startsWith(`/customer/v1/brands/${forbidden}/`));
    expect(denied).toHaveLength(1);
    expect(denied.every((entry) => entry.status === 403)).toBe(true);
  });

  it("bvsync status shows the failure with the API's error code", async () => {
    const status = await runBvsync(
      ['status', '--config', writeCliConfig(fx)],
      cliEnv(fx, { BVSYNC_BRANDS: `1,${forbidden}` }),
    );
    expect(status.code, status.stderr).toBe(0);
    const failureLines = status.stdout.split('\n').filter((line) => line.includes('brand_access_denied'));
    expect(failureLines).toHaveLength(5);
    for (const line of failureLines) expect(line).toMatch(new RegExp(`\\b${forbidden}\\b`));
    expect(status.stdout).not.toContain(fx.sim.apiKey);
    expect(status.stdout).not.toContain('not in the config');
  });

  it('bvsync status counts apart the failed slices of a brand taken out of the config', async () => {
    const env = cliEnv(fx, { BVSYNC_BRANDS: '1' });
    const config = writeCliConfig(fx);
    const [text, json] = await Promise.all([
      runBvsync(['status', '--config', config], env),
      runBvsync(['status', '--json', '--config', config], env),
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      `5 of them are of brand(s) ${forbidden}, not in the config's brands: no run reads them again`,
    );
    expect(JSON.parse(json.stdout).slicesNotCompleteOutsideConfig).toEqual({
      brands: [forbidden],
      streams: [],
      slices: 5,
    });
  });

  it('bvsync status counts apart the failed slices of streams the config no longer syncs', async () => {
    const env = cliEnv(fx, { BVSYNC_BRANDS: `1,${forbidden}` });
    const config = writeCliConfig(fx, { sync: { streams: ['conversations'] } });
    const dropped = await queryFile(
      fx.config.db,
      "SELECT stream, count(*)::INTEGER AS slices FROM _sync_state WHERE status <> 'complete' AND stream <> 'conversations' GROUP BY stream ORDER BY stream",
    );
    const streams = dropped.map((row) => String(row.stream));
    const slices = dropped.reduce((sum, row) => sum + Number(row.slices), 0);
    expect(slices).toBeGreaterThan(0);
    const [text, json] = await Promise.all([
      runBvsync(['status', '--config', config], env),
      runBvsync(['status', '--json', '--config', config], env),
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      `${slices} of them are of stream(s) ${streams.join(', ')}, which the config does not sync: no run reads them again`,
    );
    expect(JSON.parse(json.stdout).slicesNotCompleteOutsideConfig).toEqual({ brands: [], streams, slices });
  });

  it("an incremental sync moves the readable brand's cursors and leaves the forbidden brand without any", async () => {
    fx.config.sync.initialDays = 2;
    const sync = await runInProcess(fx, { kind: 'sync', today: TODAY, brands: [1, forbidden], streams: STREAMS });
    expect(sync.meta.status).toBe('incomplete');
    const cursors = await queryFile(
      fx.config.db,
      'SELECT brand_id, stream, through_day::VARCHAR AS day FROM _sync_cursors ORDER BY ALL',
    );
    expect(cursors).toEqual([
      { brand_id: 1, stream: 'competitors', day: FROM },
      { brand_id: 1, stream: 'conversations', day: FROM },
      { brand_id: 1, stream: 'visibility', day: FROM },
    ]);
  });
});
