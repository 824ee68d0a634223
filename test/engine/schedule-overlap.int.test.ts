import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writtenFile } from '../../src/engine/writer/prefix-warehouse.js';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore, type RunMeta } from '../../src/engine/run/run-store.js';
import { scheduledRunId } from '../../src/engine/schedule/scheduler.js';
import { enqueueRun } from '../../src/engine/run/start-run.js';
import { WorkerHost } from '../../src/engine/jobs/worker-host.js';
import { isFinishedRunStatus } from '../../src/vocabulary.js';
import { slicesHeldElsewhere } from '../../src/engine/run/held-slices.js';
import { redisKeys } from '../../src/redis-keys.js';
import { engineFixture, queryFile, type EngineFixture } from '../support/engine.js';
import { until } from '../support/until.js';

/**
 * Two ticks of one schedule whose days overlap, the second firing while the first still reads: the second plans only
 * the slices the first does not hold, so no request is sent twice. The first tick's run was recorded while no worker
 * ran and its plan job never added (its scheduler stopped in between): the worker that starts plans it.
 */

const SCHEDULE = 'every-minute';
const FIRST = scheduledRunId(SCHEDULE, new Date('2026-11-19T01:29:00Z'));
const SECOND = scheduledRunId(SCHEDULE, new Date('2026-11-20T01:30:00Z'));

let fx: EngineFixture;
let host: WorkerHost;
let connection: ReturnType<typeof connectRedis>;
let runs: RunStore;
let first: RunMeta;
let second: RunMeta;
// The simulator holds every conversations answer until the second tick is planned, so the first's slices are still
// held then, however slow the box.
let answer: () => void;
const answered = new Promise<void>((resolve) => {
  answer = resolve;
});

async function finished(runId: string): Promise<RunMeta> {
  let meta: RunMeta | null = null;
  await until(
    `run ${runId} to finish`,
    async () => {
      meta = await runs.get(runId);
      return meta !== null && isFinishedRunStatus(meta.status);
    },
    60_000,
  );
  return meta!;
}

async function plannedIds(runId: string): Promise<string[]> {
  return (await connection.smembers(redisKeys(fx.config.redisPrefix).run(runId, 'planned'))).sort();
}

beforeAll(async () => {
  fx = await engineFixture('schedule-overlap', {
    sim: { beforeAnswer: ({ path }) => (path.includes('/conversations') ? answered : undefined) },
    config: {
      sync: { initialDays: 3, lookbackDays: 2, streams: ['conversations'] },
      schedules: [{ name: SCHEDULE, cron: '* * * * *' }],
    },
  });
  // A held answer outlasts no client wait on a loaded box.
  fx.config.api.headersTimeoutMs = 120_000;
  connection = connectRedis(fx.redisUrl);
  runs = new RunStore(connection, fx.config.redisPrefix);
  // The first tick as a scheduler that stopped between recording its run and adding the plan job leaves it.
  const recorded = await runs.create({
    runId: FIRST,
    kind: 'scheduled',
    brands: fx.config.brands,
    streams: ['conversations'],
    today: '2026-11-19',
    from: null,
    to: null,
    status: 'planning',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    phase: 0,
    published: null,
    error: null,
    db: writtenFile(fx.config.db),
  });
  expect(recorded).toBe(true);
  host = new WorkerHost({
    config: fx.config,
    redisUrl: fx.redisUrl,
    log: fx.log,
    leaseTtlMs: 2_000,
    fetchConcurrency: 1,
  });
  await host.start();
  await until(
    'the first run to be planned by the worker that started',
    async () => (await runs.get(FIRST))?.status === 'running',
    30_000,
  );
  await enqueueRun({
    config: fx.config,
    redisUrl: fx.redisUrl,
    log: fx.log,
    kind: 'scheduled',
    runId: SECOND,
    brands: fx.config.brands,
    streams: ['conversations'],
    today: '2026-11-20',
  });
  await until('the second run to be planned', async () => (await runs.get(SECOND))?.status !== 'planning', 30_000);
  answer();
  first = await finished(FIRST);
  second = await finished(SECOND);
}, 120_000);

afterAll(async () => {
  answer();
  await host?.stop(5_000);
  connection?.disconnect();
  await fx?.cleanup();
});

describe('two ticks of one schedule over the same days', () => {
  it('plans the run a stopped scheduler left planning, and finishes it', () => {
    expect(first.status).toBe('complete');
  });

  it('plans in the second tick only the slices the first did not hold', async () => {
    const ofFirst = await plannedIds(FIRST);
    const ofSecond = await plannedIds(SECOND);
    // First: 17..19 per brand; second: 18..20, of which 18 and 19 are the first's.
    expect(ofFirst).toHaveLength(2 * 3);
    expect(ofSecond).toEqual(fx.config.brands.map((brand) => `${brand}|conversations|2026-11-20`));
    expect(second.held).toEqual(Object.fromEntries(fx.config.brands.map((brand) => [`${brand}|conversations`, 2])));
    expect(second.status).toBe('complete');
  });

  it('sends no request twice', () => {
    const asked = fx.sim
      .requestLog()
      .filter((entry) => entry.path.includes('/conversations') && entry.status === 200)
      .map((entry) => `${entry.path}?${JSON.stringify(entry.query)}`);
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked).size).toBe(asked.length);
  });

  it('loads every day of both ticks, and moves the cursor only as far as the run that read the days', async () => {
    const days = await queryFile(
      fx.config.db,
      "SELECT brand_id::INTEGER AS brand, list(slice_key ORDER BY slice_key) AS days FROM _sync_state WHERE stream = 'conversations' AND status = 'complete' GROUP BY ALL ORDER BY brand",
    );
    expect(days.map((row) => row.days)).toEqual(
      fx.config.brands.map(() => ['2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20']),
    );
    const cursors = await queryFile(
      fx.config.db,
      "SELECT through_day::VARCHAR AS day FROM _sync_cursors WHERE stream = 'conversations'",
    );
    expect(cursors.map((row) => row.day)).toEqual(fx.config.brands.map(() => '2026-11-18'));
  });

  it("counts as held only the unfinished slices of sync and scheduled runs, never a backfill's", async () => {
    const record = async (runId: string, kind: RunMeta['kind'], sliceIds: string[]) => {
      await runs.create({
        runId,
        kind,
        brands: [1],
        streams: ['conversations'],
        today: '2026-11-21',
        from: null,
        to: null,
        status: 'running',
        startedAt: new Date().toISOString(),
        finishedAt: null,
        phase: 1,
        published: null,
        error: null,
      });
      await runs.recordPlannedThenUpdate(
        runId,
        sliceIds.map((sliceId) => ({ sliceId, brandId: 1, stream: 'conversations' })),
        {},
      );
    };
    await record('held-sync', 'sync', ['1|conversations|2026-11-21', '1|conversations|2026-11-22']);
    await record('held-backfill', 'backfill', ['1|conversations|2026-11-23']);
    await runs.recordOutcome('held-sync', {
      sliceId: '1|conversations|2026-11-22',
      brandId: 1,
      stream: 'conversations',
      status: 'complete',
      rows: 1,
      rejects: 0,
      requests: 1,
      retries: 0,
      rateLimited: 0,
    });
    const held = await slicesHeldElsewhere(runs, 'the-tick', [
      '1|conversations|2026-11-21',
      '1|conversations|2026-11-22',
      '1|conversations|2026-11-23',
    ]);
    expect([...held]).toEqual([['1|conversations|2026-11-21', 'held-sync']]);
  });
});
