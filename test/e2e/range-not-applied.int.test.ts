import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineFixture, queryFile, runInProcess, type EngineFixture } from '../support/engine.js';

/**
 * A day slice asks for one UTC day; an API whose days are another zone's says so in `info.query`
 * (`2026-11-19T00:00:00-05:00`). Its rows cover another span than the day they would be filed under: not loaded.
 */

const TODAY = '2026-11-20';
const DAY = '2026-11-19';

let fx: EngineFixture;

beforeAll(async () => {
  fx = await engineFixture('range-not-applied', { sim: { brands: 1, rangeEndEcho: 'offset' } });
});
afterAll(async () => fx?.cleanup());

describe("a day slice whose echo says the API applied another zone's day", () => {
  it('fails, naming what the echo says, and loads no row of it; a stream that echoes no range loads', async () => {
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      today: TODAY,
      from: DAY,
      to: DAY,
      streams: ['visibility', 'conversations'],
    });
    // Before, every slice was complete and the other zone's numbers were filed under the UTC day.
    expect(progress.meta.status).toBe('incomplete');
    const states = await queryFile(
      fx.config.db,
      `SELECT stream, status, error_code, last_error FROM _sync_state ORDER BY stream`,
    );
    expect(states.map(({ stream, status, error_code }) => ({ stream, status, error_code }))).toEqual([
      { stream: 'conversations', status: 'complete', error_code: null },
      { stream: 'visibility', status: 'failed', error_code: 'range_not_applied' },
    ]);
    expect(String(states[1]!.last_error)).toContain(`start_date=${DAY} as "${DAY}T00:00:00-05:00"`);
    expect(await queryFile(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM visibility_topic_daily')).toEqual([
      { n: 0 },
    ]);
  }, 120_000);
});

describe('a day slice whose echo names its range under other names than those sent', () => {
  let renamed: EngineFixture;
  beforeAll(async () => {
    // The API reads `from`/`to`, ignores start_date/end_date, applies its default window and echoes it as from/to.
    renamed = await engineFixture('range-renamed', {
      sim: { brands: 1, params: { start_date: 'from', end_date: 'to' }, strictParams: false },
    });
  });
  afterAll(async () => renamed?.cleanup());

  it("fails as range_not_applied, naming the echo's dates, and loads none of the window's totals under the day", async () => {
    const progress = await runInProcess(renamed, {
      kind: 'backfill',
      today: TODAY,
      from: DAY,
      to: DAY,
      streams: ['visibility'],
    });
    // Before, the default window's totals were filed under the day, the slice complete.
    expect(progress.meta.status).not.toBe('complete');
    const [state] = await queryFile(
      renamed.config.db,
      `SELECT status, error_code, last_error FROM _sync_state WHERE stream = 'visibility'`,
    );
    expect(state).toMatchObject({ status: 'failed', error_code: 'range_not_applied' });
    expect(String(state!.last_error)).toMatch(
      /info\.query names from="\d{4}-\d{2}-\d{2}.*but not start_date or end_date, which bvsync sent for 2026-11-19/,
    );
    expect(await queryFile(renamed.config.db, 'SELECT count(*)::INTEGER AS n FROM visibility_topic_daily')).toEqual([
      { n: 0 },
    ]);
  }, 120_000);
});
