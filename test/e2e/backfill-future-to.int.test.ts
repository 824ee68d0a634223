import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, engineFixture, queryFile, runBvsync, writeCliConfig, type EngineFixture } from '../support/engine.js';

/** `backfill --to` a day after today: one line says it stops at today, and the run's window ends there. */

const TODAY = '2026-11-20';
let fx: EngineFixture;

beforeAll(async () => {
  fx = await engineFixture('backfill-future-to', { sim: { brands: 1, days: 2, scale: 5, today: TODAY } });
});
afterAll(async () => {
  await fx?.cleanup();
});

describe('backfill --to after today', () => {
  it('says it backfills through today, once, and records the window it fetched', async () => {
    const args = [
      'backfill',
      '--from',
      TODAY,
      '--to',
      '2026-12-31',
      '--today',
      TODAY,
      '--streams',
      'conversations',
      '--config',
      writeCliConfig(fx),
    ];
    const result = await runBvsync(args, cliEnv(fx));
    expect(result.code, result.stderr).toBe(0);
    const notices = result.stderr.split('\n').filter((line) => line.includes('is after today'));
    expect(notices).toEqual([`--to 2026-12-31 is after today (${TODAY}): backfilling through today`]);
    const runs = await queryFile(
      fx.config.db,
      'SELECT window_start::VARCHAR AS "from", window_end::VARCHAR AS "to" FROM _sync_runs',
    );
    expect(runs).toEqual([{ from: TODAY, to: TODAY }]);
  });
});

describe('backfill of a stream that reads only ids the config lists, named beside another', () => {
  it('says which one plans nothing and why, and runs the other', async () => {
    const args = [
      'backfill',
      '--from',
      TODAY,
      '--today',
      TODAY,
      '--streams',
      'fanouts_by_phrase,competitors',
      '--config',
      writeCliConfig(fx),
    ];
    const result = await runBvsync(args, cliEnv(fx));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /^bvsync: fanouts_by_phrase plans nothing for brand \d+: sync\.phrases names no phrase \(the API lists none\); the other streams run$/m,
    );
    expect(
      await queryFile(
        fx.config.db,
        `SELECT DISTINCT stream FROM _sync_state WHERE stream IN ('competitors', 'fanouts_by_phrase')`,
      ),
    ).toEqual([{ stream: 'competitors' }]);
  });
});
