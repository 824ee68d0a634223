import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToEnd } from '../../src/engine/run/start-run.js';
import { createLogger } from '../../src/log.js';
import { engineFixture, type EngineFixture } from '../support/engine.js';
import { tempDir } from '../support/tmp.js';

/**
 * A `sync` or `backfill` told to stop while its run finalizes: the stop lets that load job finish, which publishes
 * the run, so the command reports the run as the stop left it, not as it was when the signal came.
 */

const TODAY = '2026-11-20';
const log = createLogger({ level: 'silent', pretty: false });
let fx: EngineFixture;
const views = tempDir('slow-views');

beforeAll(async () => {
  fx = await engineFixture('stop-while-finalizing', { sim: { brands: 1, days: 2, scale: 5, today: TODAY } });
  // The published copy's only "view" keeps DuckDB busy for a few seconds, so the publish is still running when the
  // command sees the run finalizing and is told to stop.
  writeFileSync(
    join(views.path, '001_slow.sql'),
    'CREATE TABLE slow AS SELECT sum(hash(range)) AS s FROM range(400000000)',
  );
});
afterAll(async () => {
  await fx.cleanup();
  views.remove();
});

describe('a run stopped while it finalizes', () => {
  it('is reported complete and published, as the stop left it', async () => {
    const stopping = new AbortController();
    const progress = await runToEnd({
      config: fx.config,
      redisUrl: fx.redisUrl,
      log,
      kind: 'backfill',
      brands: [1],
      streams: ['conversations'],
      today: TODAY,
      from: TODAY,
      to: TODAY,
      signal: stopping.signal,
      onProgress: ({ meta }) => {
        if (meta.status === 'finalizing') stopping.abort();
      },
      worker: { fetchThreads: 0, stopDeadlineMs: 5_000, warehouse: { viewsDir: views.path } },
    });
    expect(stopping.signal.aborted).toBe(true);
    expect(progress.meta.status).toBe('complete');
    expect(progress.meta.published).toBe(fx.config.db);
  }, 60_000);
});
