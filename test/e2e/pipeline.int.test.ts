import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineFixture, queryFile, runInProcess, type EngineFixture } from '../support/engine.js';

let fx: EngineFixture;
beforeAll(async () => {
  fx = await engineFixture('pipeline');
});
afterAll(async () => fx?.cleanup());

describe('the pipeline: plan -> fetch -> commit -> finalize -> publish', () => {
  it('backfills conversations and competitors of two brands and publishes them', async () => {
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      streams: ['conversations', 'competitors'],
      today: '2026-11-20',
      from: '2026-11-18',
      to: '2026-11-20',
    });
    expect(progress.meta.status).toBe('complete');
    expect(progress.planned).toBe(2 * (3 + 1));
    expect(progress.done).toBe(progress.planned);
    expect(progress.meta.published).toBe(fx.config.db);

    const counts = await queryFile(
      fx.config.db,
      'SELECT brand_id, day::VARCHAR AS day, count(*)::INTEGER AS n FROM conversations GROUP BY ALL ORDER BY ALL',
    );
    expect(counts).toHaveLength(6);
    for (const row of counts) {
      const answers = fx.sim.truth.answers(Number(row.brand_id), String(row.day));
      expect(row.n).toBe(answers.length);
    }
    const state = await queryFile(
      fx.config.db,
      "SELECT count(*)::INTEGER AS n FROM _sync_state WHERE status = 'complete'",
    );
    expect(state[0]!.n).toBe(8);
    const cursors = await queryFile(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM _sync_cursors');
    expect(cursors[0]!.n).toBe(0); // a backfill never moves the incremental position
  });
});
