import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { runToEnd } from '../../jobs/start-run.js';
import { engineFixture, type EngineFixture } from '../support/engine.js';

let fx: EngineFixture;
beforeAll(async () => {
  fx = await engineFixture('pipeline');
});
afterAll(async () => fx?.cleanup());

async function publishedRows(path: string, sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('the pipeline: plan -> fetch -> commit -> finalize -> publish', () => {
  it('backfills conversations and competitors of two brands and publishes them', async () => {
    const progress = await runToEnd({
      config: fx.config,
      redisUrl: fx.redisUrl,
      log: fx.log,
      kind: 'backfill',
      brands: fx.config.brands,
      streams: ['conversations', 'competitors'],
      today: '2026-11-20',
      from: '2026-11-18',
      to: '2026-11-20',
      worker: { leaseTtlMs: 2000 },
    });
    expect(progress.meta.status).toBe('complete');
    expect(progress.planned).toBe(2 * (3 + 1));
    expect(progress.done).toBe(progress.planned);
    expect(progress.meta.published).toBe(fx.config.db);

    const counts = await publishedRows(fx.config.db, 'SELECT brand_id, day::VARCHAR AS day, count(*)::INTEGER AS n FROM conversations GROUP BY ALL ORDER BY ALL');
    expect(counts).toHaveLength(6);
    for (const row of counts) {
      const answers = fx.sim.truth.answers(Number(row.brand_id), String(row.day));
      expect(row.n).toBe(answers.length);
    }
    const state = await publishedRows(fx.config.db, "SELECT count(*)::INTEGER AS n FROM _sync_state WHERE status = 'complete'");
    expect(state[0]!.n).toBe(8);
    const cursors = await publishedRows(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM _sync_cursors');
    expect(cursors[0]!.n).toBe(0); // a backfill never moves the incremental position
  });
});
