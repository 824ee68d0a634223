import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToEnd } from '../../src/engine/run/start-run.js';
import { engineFixture, queryFile, type EngineFixture } from '../support/engine.js';
import { FROM, hookedWorker, TODAY, type HookedWorker } from './scenarios.js';

/**
 * A load job that fails for good (here: every commit of one stream throws an unrecoverable error) used to leave its
 * run `running` forever, and the command waiting on it waiting forever. The run must end failed, with the reason,
 * and keep the slices it did commit.
 */

let fx: EngineFixture;
let worker: HookedWorker | undefined;
beforeAll(async () => {
  fx = await engineFixture('rel-failed-load', { sim: { brands: 1, days: 3, scale: 10, today: TODAY } });
});
afterAll(async () => {
  worker?.kill('SIGKILL');
  await fx?.cleanup();
});

describe('a load job that fails for good', () => {
  it('ends the run failed with the reason, instead of leaving the waiting command waiting forever', async () => {
    // Nothing is taken over here: default lease and job locks, which no late renewal on a loaded machine passes on.
    worker = hookedWorker(fx, 0, { failStream: 'competitors', takeover: false });
    expect(await worker.nextLine('STARTED', 30_000)).toBe('STARTED writer');
    const progress = await runToEnd({
      config: fx.config,
      redisUrl: fx.redisUrl,
      log: fx.log,
      kind: 'backfill',
      brands: fx.config.brands,
      streams: ['conversations', 'competitors'],
      today: TODAY,
      from: FROM,
      to: TODAY,
      // This process only fetches, so the hooked worker is the one that commits.
      worker: { load: false },
    });
    expect(progress.meta.status).toBe('failed');
    expect(progress.meta.error).toMatch(
      /^the commit job commit\.\S+competitors\S* failed for good: the test fails every commit of competitors\. The run cannot finish/,
    );
    worker.kill('SIGTERM');
    await worker.done;
    worker = undefined;
    // _sync_runs says the run failed; no state claims the slice that never committed, and what did commit is whole.
    const working = fx.config.db.replace(/\.duckdb$/, '.work.duckdb');
    expect(await queryFile(working, 'SELECT run_id, status FROM _sync_runs')).toEqual([
      { run_id: progress.meta.runId, status: 'failed' },
    ]);
    expect(
      await queryFile(
        working,
        `SELECT stream, status FROM _sync_state WHERE stream = 'competitors' OR status <> 'complete'`,
      ),
    ).toEqual([]);
    const [loaded] = await queryFile(
      working,
      `SELECT (SELECT count(*) FROM conversations)::INTEGER AS rows, (SELECT coalesce(sum("rows"), 0) FROM _sync_state WHERE stream = 'conversations')::INTEGER AS claimed`,
    );
    expect(loaded!.rows).toBe(loaded!.claimed);
  }, 60_000);
});
