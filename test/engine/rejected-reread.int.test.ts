import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineFixture, queryFile, runInProcess, type EngineFixture } from '../support/engine.js';

/**
 * A day loaded complete, read again while the API's records no longer fit their schema: the read rejects them and
 * would load fewer than the day holds. It is recorded as an incomplete attempt beside the day, whose rows stay.
 */

const TODAY = '2026-11-20';
const DAY = '2026-11-19';
let fx: EngineFixture;

beforeAll(async () => {
  fx = await engineFixture('rejected-reread', { sim: { brands: 1, days: 3, scale: 30, today: TODAY } });
});
afterAll(async () => {
  await fx.cleanup();
});

const backfill = () =>
  runInProcess(fx, { kind: 'backfill', today: TODAY, from: DAY, to: DAY, streams: ['conversations'] });
const held = async () =>
  Number((await queryFile(fx.config.db, `SELECT count(*) AS n FROM conversations WHERE "day" = DATE '${DAY}'`))[0]!.n);

describe('a day read again whose records now fail validation', () => {
  it('keeps the rows it held and records the read beside them, incomplete, naming the rejects', async () => {
    expect((await backfill()).meta.status).toBe('complete');
    const before = await held();
    expect(before).toBeGreaterThan(10);

    fx.sim.setKnobs({ invalidShare: 0.5 });
    const again = await backfill();
    fx.sim.setKnobs({ invalidShare: 0 });
    expect(again.meta.status).toBe('incomplete');
    expect(await held()).toBe(before);
    const [state] = await queryFile(
      fx.config.db,
      `SELECT status, "rows", last_attempt_status, last_attempt_error, last_attempt_error_code FROM _sync_state WHERE stream = 'conversations' AND slice_key = '${DAY}'`,
    );
    expect(state).toMatchObject({
      status: 'complete',
      rows: before,
      last_attempt_status: 'incomplete',
      last_attempt_error_code: 'row_invalid',
    });
    expect(String(state!.last_attempt_error)).toMatch(
      new RegExp(
        `record\\(s\\) of this read failed validation \\(the first: .+\\), leaving \\d+ where the slice holds ${before}: its rows are kept`,
      ),
    );
  });

  it('a first read whose every record fails validation is incomplete, not complete with nothing loaded', async () => {
    const empty = '2026-11-18';
    fx.sim.setKnobs({ invalidShare: 1 });
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      today: TODAY,
      from: empty,
      to: empty,
      streams: ['conversations'],
    });
    fx.sim.setKnobs({ invalidShare: 0 });
    // Before, the run ended complete, exit 0, the day counted fresh with no row of it in the tables.
    expect(progress.meta.status).toBe('incomplete');
    const [state] = await queryFile(
      fx.config.db,
      `SELECT status, "rows", error_code, last_error FROM _sync_state WHERE stream = 'conversations' AND slice_key = '${empty}'`,
    );
    expect(state).toMatchObject({ status: 'incomplete', rows: 0, error_code: 'row_invalid' });
    expect(String(state!.last_error)).toMatch(
      /^every record of this read \(\d+\) failed validation \(the first: .+\): they are in _rejected_records, not in the tables$/,
    );
    const rejected = Number(
      (
        await queryFile(
          fx.config.db,
          `SELECT count(*) AS n FROM _rejected_records WHERE stream = 'conversations' AND slice_key = '${empty}'`,
        )
      )[0]!.n,
    );
    expect(rejected).toBeGreaterThan(10);
  });
});
