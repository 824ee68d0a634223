import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineFixture, queryFile, runInProcess, type EngineFixture } from '../support/engine.js';

/**
 * A first sync after a backfill starts where the backfill's complete days end: it fetches only the lookback days
 * again, not the whole initial window. The backfill itself still moves no cursor.
 */

const TODAY = '2026-11-20';
let fx: EngineFixture;
beforeAll(async () => {
  fx = await engineFixture('after-backfill', { config: { sync: { initialDays: 6, lookbackDays: 2 } } });
});
afterAll(async () => fx?.cleanup());

const conversationStarts = () =>
  fx.sim
    .requestLog()
    .filter((entry) => entry.path.endsWith('/conversations'))
    .map((entry) => String(entry.query.start_date))
    .sort();

describe('a sync after a backfill', () => {
  it('fetches only the lookback days the backfill already loaded', async () => {
    const streams = ['conversations', 'visibility'];
    const backfill = await runInProcess(fx, { kind: 'backfill', today: TODAY, from: '2026-11-15', to: TODAY, streams });
    expect(backfill.meta.status).toBe('complete');
    expect(await queryFile(fx.config.db, 'SELECT * FROM _sync_cursors')).toEqual([]);

    fx.sim.clearRequestLog();
    const sync = await runInProcess(fx, { kind: 'sync', today: TODAY, streams });
    expect(sync.meta.status).toBe('complete');
    const brands = fx.config.brands.length;
    expect(conversationStarts()).toEqual(
      [...Array(brands).fill('2026-11-19'), ...Array(brands).fill('2026-11-20')].sort(),
    );
    const cursors = await queryFile(
      fx.config.db,
      'SELECT stream, through_day::VARCHAR AS through FROM _sync_cursors ORDER BY ALL',
    );
    expect(cursors.map((row) => row.through)).toEqual(Array(brands * streams.length).fill('2026-11-19'));
  });

  it('starts at its initial window when the backfill left a gap in it', async () => {
    const gap = await engineFixture('after-backfill-gap', { config: { sync: { initialDays: 6, lookbackDays: 2 } } });
    try {
      // Days 15-16 were never loaded; only 17-20 were.
      await runInProcess(gap, {
        kind: 'backfill',
        today: TODAY,
        from: '2026-11-17',
        to: TODAY,
        streams: ['conversations'],
      });
      gap.sim.clearRequestLog();
      await runInProcess(gap, { kind: 'sync', today: TODAY, streams: ['conversations'] });
      const starts = gap.sim
        .requestLog()
        .filter((entry) => entry.path.endsWith('/conversations'))
        .map((entry) => String(entry.query.start_date));
      expect(new Set(starts)).toEqual(
        new Set(['2026-11-15', '2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20']),
      );
    } finally {
      await gap.cleanup();
    }
  });
});
