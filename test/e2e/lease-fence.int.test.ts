import { afterAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { redisKeys } from '../../src/redis-keys.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import { hookedWorker, type HookedWorker } from '../reliability/scenarios.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runInProcess,
  spawnBvsync,
  tableDifferences,
  writeCliConfig,
  type CliProcess,
} from '../support/engine.js';
import { until } from '../support/until.js';

/**
 * A writer holding the DuckDB writer lease frozen (SIGSTOP, as a long GC pause or a suspended VM does) inside a
 * commit's transaction, past the lease's ttl, while a `bvsync backfill` runs beside it; then resumed (SIGCONT). The
 * lease's fencing token (src/engine/writer/writer-lease.ts, src/warehouse/load/commit-fence.ts) rolls that commit back and stops
 * the writer: no commit passes its check under the lost token, and the run ends with the tables of an undisturbed run.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-16';
const STREAMS = 'conversations,visibility,tracked_urls,product_ranking,competitors';
/** A short lease and job lock (TAKEOVER_MS, as the hooked worker's), so the frozen writer's lease passes on within seconds. */
const FAST_TAKEOVER = { BVSYNC_LEASE_TTL_MS: '1500', BVSYNC_JOB_LOCK_MS: '1500' };

const started: Array<CliProcess | HookedWorker> = [];
afterAll(() => {
  for (const child of started) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});

function sliceStates(db: string) {
  return queryFile(
    db,
    `SELECT brand_id, stream, slice_key, "day"::VARCHAR AS day, status, "rows", total_rows FROM _sync_state ORDER BY ALL`,
  );
}

describe('a writer frozen past its lease, then resumed', () => {
  it('rolls back the commit it was in, commits nothing more, and the run ends with the tables of an undisturbed one', async () => {
    const clean = await engineFixture('fence-clean');
    const fx = await engineFixture('fence-frozen');
    const redis = connectRedis(fx.redisUrl);
    const keys = redisKeys(fx.config.redisPrefix);
    try {
      const reference = await runInProcess(clean, {
        kind: 'backfill',
        today: TODAY,
        from: FROM,
        to: TODAY,
        streams: STREAMS.split(','),
      });
      expect(reference.meta.status).toBe('complete');

      fx.sim.setKnobs({ latencyMs: 50 });
      // The writer: a worker process that says when it is inside the transaction of its second commit, just before COMMIT.
      const writer = hookedWorker(fx, 2, { freezeInTransaction: true, logLevel: 'info' });
      started.push(writer);
      await writer.nextLine('STARTED', 120_000);
      await until(
        'the writer to hold the lease',
        () => /holding the DuckDB writer lease/.test(writer.stderr()),
        60_000,
      );
      const backfill = spawnBvsync(
        [
          'backfill',
          '--from',
          FROM,
          '--to',
          TODAY,
          '--today',
          TODAY,
          '--streams',
          STREAMS,
          '--config',
          writeCliConfig(fx),
        ],
        cliEnv(fx, FAST_TAKEOVER),
      );
      started.push(backfill);

      await writer.nextLine('IN_TRANSACTION', 120_000);
      writer.kill('SIGSTOP');
      const frozenAt = Date.now();
      const frozenToken = Number(await redis.get(keys.writerFence));
      // Frozen until its lease has expired and another process has taken it: the fencing counter moved past its token.
      await until(
        "the frozen writer's lease to pass on",
        async () => Number(await redis.get(keys.writerFence)) > frozenToken,
        60_000,
        20,
      );
      writer.kill('SIGCONT');
      await until(
        'the resumed writer to notice its loss',
        () => /lost the DuckDB writer lease/.test(writer.stderr()),
        60_000,
      );

      const result = await backfill.done;
      expect(result.code, result.stderr.slice(-2000)).toBe(0);
      expect(result.stdout).toMatch(/: complete;/);
      expect(writer.stderr()).toMatch(/a load job was stopped by the writer lease's fence: it goes back to the queue/);
      writer.kill('SIGKILL');
      await writer.done;

      // Every commit carries the token it was made under. None under the frozen writer's token passed its check after
      // the freeze (without the fence, its commit and those after it did); the rest were made under larger tokens.
      const commits = await queryFile(
        workingPathFor(fx.config.db),
        `SELECT fence_token AS fence, epoch_ms(fence_checked_at) AS checked FROM _slice_commits`,
      );
      expect(commits.length).toBeGreaterThan(50);
      expect(commits.filter((commit) => commit.fence === null)).toEqual([]);
      expect(
        commits.filter((commit) => Number(commit.fence) <= frozenToken && Number(commit.checked) >= frozenAt),
      ).toEqual([]);
      expect(commits.some((commit) => Number(commit.fence) > frozenToken)).toBe(true);
      expect(await tableDifferences(clean.config.db, fx.config.db)).toEqual([]);
      expect(await sliceStates(fx.config.db)).toEqual(await sliceStates(clean.config.db));
    } finally {
      redis.disconnect();
      await clean.cleanup();
      await fx.cleanup();
    }
  }, 300_000);
});
