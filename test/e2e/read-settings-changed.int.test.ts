import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, engineFixture, runBvsync, writeCliConfig, type EngineFixture } from '../support/engine.js';

/**
 * An API that reads its range under names bvsync did not send ignores them and applies its own default; a list that
 * echoes no query (tracked URLs) loads that as the day asked for, complete. Once api.params is fixed, a sync re-reads
 * only its lookback: it names the days read with the earlier names, and the backfill that reads them anew, and is
 * quiet once they are.
 */

const TODAY = '2026-11-20';
const WIRE = { start_date: 'since', end_date: 'until' };
let fx: EngineFixture;
const api = { requestsPerSecond: 1000, retryBaseMs: 5, retryMaxMs: 50 };

beforeAll(async () => {
  fx = await engineFixture('read-settings-changed', {
    sim: { brands: 1, today: TODAY, params: WIRE, strictParams: false },
  });
});
afterAll(async () => fx?.cleanup());

const run = (args: string[], config: string) =>
  runBvsync([...args, '--streams', 'tracked_urls', '--today', TODAY, '--config', config], cliEnv(fx));

describe('a sync after api.params changed', () => {
  it('names the days read with the earlier names and what changed, and is quiet once they are read anew', async () => {
    const wrong = writeCliConfig(fx, { api, sync: { initialDays: 2 } });
    const backfill = await run(['backfill', '--from', '2026-11-13', '--to', '2026-11-15'], wrong);
    expect(backfill.code, backfill.stderr).toBe(0);
    const same = await run(['sync'], wrong);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).not.toMatch(/other API settings/);

    const fixed = writeCliConfig(fx, { api: { ...api, params: WIRE }, sync: { initialDays: 2 } });
    const sync = await run(['sync'], fixed);
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.stderr).toContain(
      "3 complete day(s) of tracked_urls for brand 1 (2026-11-13..2026-11-15) were read with other API settings than this sync's " +
        '(end_date sent as end_date, now until; start_date sent as start_date, now since), and this sync does not read them again; ' +
        'if the API read those requests otherwise, bvsync backfill --brand 1 --streams tracked_urls --from 2026-11-13 --to 2026-11-15 reads them anew',
    );

    const reread = await run(['backfill', '--brand', '1', '--from', '2026-11-13', '--to', '2026-11-15'], fixed);
    expect(reread.code, reread.stderr).toBe(0);
    const quiet = await run(['sync'], fixed);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toMatch(/other API settings/);
  }, 240_000);
});
