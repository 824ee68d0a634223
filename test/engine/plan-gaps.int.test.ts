import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineFixture, queryFile, runInProcess, type EngineFixture } from '../support/engine.js';

/** A per-engine stream asked for while no engine is known: the run says so, ends incomplete and keeps the stream's cursor. */

const TODAY = '2026-11-20';
let fx: EngineFixture;

beforeAll(async () => {
  fx = await engineFixture('plan-gaps', { sim: { brands: 1, days: 5, scale: 5, today: TODAY } });
});
afterAll(async () => {
  await fx.cleanup();
});

describe('a per-engine stream with no engine known', () => {
  it('plans nothing, says why, ends the run incomplete and leaves its cursor for the run that knows the engines', async () => {
    const alone = await runInProcess(fx, { kind: 'sync', today: TODAY, streams: ['visibility_by_engine'] });
    expect(alone.meta.status).toBe('incomplete');
    expect(alone.meta.gaps).toEqual([
      { brandId: 1, stream: 'visibility_by_engine', why: expect.stringMatching(/^no engine is known/) },
    ]);
    expect(alone.planned).toBe(0);
    const cursors = await queryFile(
      fx.config.db,
      "SELECT count(*)::INTEGER AS n FROM _sync_cursors WHERE stream = 'visibility_by_engine'",
    );
    expect(cursors).toEqual([{ n: 0 }]);
    expect(await queryFile(fx.config.db, `SELECT status FROM _sync_runs WHERE run_id = '${alone.meta.runId}'`)).toEqual(
      [{ status: 'incomplete' }],
    );

    // With visibility loaded in the same run, its echo names the engines and the breakdown runs.
    const both = await runInProcess(fx, {
      kind: 'sync',
      today: TODAY,
      streams: ['visibility', 'visibility_by_engine'],
    });
    expect(both.meta.status).toBe('complete');
    expect(both.meta.gaps).toBeUndefined();
    expect(both.counters.get('1|visibility_by_engine')?.planned ?? 0).toBeGreaterThan(0);
  });
});
