import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, engineFixture, runBvsync, writeCliConfig, type EngineFixture } from '../support/engine.js';

/**
 * A sync after api.engines changed re-reads the days after the cursor and the lookback; the days before stay as read
 * under the filter of their time. It says so, with the backfill that reads them anew, instead of mixing the two sets
 * of engines in a week's sums with every run complete and nothing said.
 */

const TODAY = '2026-11-20';
let fx: EngineFixture;
let known: string;
const api = { requestsPerSecond: 1000, retryBaseMs: 5, retryMaxMs: 50 };

beforeAll(async () => {
  fx = await engineFixture('engines-changed', { sim: { brands: 1, today: TODAY } });
  known = [...fx.sim.truth.world(fx.config.brands[0]!).brand.engines].sort()[0]!;
});
afterAll(async () => fx?.cleanup());

describe('a sync after api.engines changed', () => {
  it('names the days read under the earlier filter and the backfill that reads them anew; quiet when nothing changed', async () => {
    const before = writeCliConfig(fx, { api, sync: { initialDays: 2 } });
    const backfill = await runBvsync(
      [
        'backfill',
        '--from',
        '2026-11-13',
        '--to',
        '2026-11-15',
        '--streams',
        'tracked_urls',
        '--today',
        TODAY,
        '--config',
        before,
      ],
      cliEnv(fx),
    );
    expect(backfill.code, backfill.stderr).toBe(0);
    const same = await runBvsync(
      ['sync', '--streams', 'tracked_urls', '--today', TODAY, '--config', before],
      cliEnv(fx),
    );
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).not.toMatch(/were read without an engines filter/);

    const after = writeCliConfig(fx, { api: { ...api, engines: [known] }, sync: { initialDays: 2 } });
    const sync = await runBvsync(
      ['sync', '--streams', 'tracked_urls', '--today', TODAY, '--config', after],
      cliEnv(fx),
    );
    expect(sync.code, sync.stderr).toBe(0);
    // It had said nothing: the 13th-15th held every engine's pages, the days after only one engine's.
    expect(sync.stderr).toContain(
      `3 complete day(s) of tracked_urls for brand 1 (2026-11-13..2026-11-15) were read without an engines filter, where api.engines now sends ${known}, ` +
        "and this sync does not read them again; their sums mix with this run's: bvsync backfill --brand 1 --streams tracked_urls --from 2026-11-13 --to 2026-11-15 reads them anew",
    );

    const advised = await runBvsync(
      [
        'backfill',
        '--brand',
        '1',
        '--streams',
        'tracked_urls',
        '--from',
        '2026-11-13',
        '--to',
        '2026-11-15',
        '--today',
        TODAY,
        '--config',
        after,
      ],
      cliEnv(fx),
    );
    expect(advised.code, advised.stderr).toBe(0);
    const settled = await runBvsync(
      ['sync', '--streams', 'tracked_urls', '--today', TODAY, '--config', after],
      cliEnv(fx),
    );
    expect(settled.stderr).not.toMatch(/were read without an engines filter/);

    // api.engines removed again: the days read under it are named, and once read anew by the backfill named, no more.
    // The list echoes no query, so nothing but the loader drops the row that said those days were filtered.
    const none = writeCliConfig(fx, { api, sync: { initialDays: 2 } });
    const removed = await runBvsync(
      ['sync', '--streams', 'tracked_urls', '--today', TODAY, '--config', none],
      cliEnv(fx),
    );
    expect(removed.code, removed.stderr).toBe(0);
    const advice = /bvsync backfill --brand 1 --streams tracked_urls --from (\S+) --to (\S+) reads them anew/.exec(
      removed.stderr,
    );
    expect(removed.stderr).toMatch(new RegExp(`were read with engines ${known}, where api.engines now sends none`));
    const [, from, to] = advice!;
    const reread = await runBvsync(
      ['backfill', '--from', from!, '--to', to!, '--streams', 'tracked_urls', '--today', TODAY, '--config', none],
      cliEnv(fx),
    );
    expect(reread.code, reread.stderr).toBe(0);
    const quiet = await runBvsync(
      ['sync', '--streams', 'tracked_urls', '--today', TODAY, '--config', none],
      cliEnv(fx),
    );
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toMatch(/were read with engines/);
  }, 240_000);
});
