import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { hostname } from 'node:os';
import { connectRedis } from '../../jobs/redis.js';
import { RunStore } from '../../jobs/run-store.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runInProcess,
  spawnBvsync,
  tableDifferences,
  writeCliConfig,
  type CliProcess,
  type EngineFixture,
} from '../support/engine.js';

/**
 * The commands as an operator runs them, as real processes on one Redis prefix and one DuckDB file: a `bvsync worker`
 * beside a `bvsync backfill`, then the worker holding the writer lease killed with SIGKILL in the middle of a run.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-16';
const STREAMS = 'conversations,visibility,tracked_urls,product_ranking,competitors';
const HOLDING = /holding the DuckDB writer lease/;
const CANNOT_OPEN = /could not open the working database/;
/** Short takeover timings, so a killed holder's lease and jobs pass on within a few seconds. */
const FAST_TAKEOVER = { BVSYNC_LEASE_TTL_MS: '1500', BVSYNC_JOB_LOCK_MS: '1500' };

const started: CliProcess[] = [];
function spawn(fx: EngineFixture, args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawnBvsync([...args, '--config', writeCliConfig(fx)], cliEnv(fx, env));
  started.push(child);
  return child;
}

/** Who ran the completed fetch jobs of a prefix: BullMQ's processedBy, `host/pid` of the worker. */
async function fetchJobRunners(fx: EngineFixture): Promise<Map<string, number>> {
  const connection = connectRedis(fx.redisUrl);
  const queue = new Queue('fetch', { connection, prefix: fx.config.redisPrefix });
  try {
    const jobs = await queue.getJobs(['completed'], 0, 10_000);
    const runners = new Map<string, number>();
    for (const job of jobs) runners.set(String(job.processedBy), (runners.get(String(job.processedBy)) ?? 0) + 1);
    return runners;
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

afterAll(() => {
  for (const child of started) child.kill('SIGKILL');
});

describe('bvsync worker beside bvsync backfill', () => {
  let fx: EngineFixture;
  beforeAll(async () => {
    fx = await engineFixture('processes-side');
  });
  afterAll(async () => fx?.cleanup());

  it('share the run: both fetch, the worker alone loads, the backfill exits 0', async () => {
    const worker = spawn(fx, ['worker']);
    await worker.waitFor(HOLDING);
    const backfill = spawn(fx, ['backfill', '--from', FROM, '--to', TODAY, '--today', TODAY, '--streams', STREAMS]);
    const result = await backfill.done;
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout).toMatch(/: complete;/);
    // One writer: the worker took the lease once, the backfill never did, and no one failed to open the file.
    expect(worker.output().match(new RegExp(HOLDING, 'g'))).toHaveLength(1);
    expect(result.stderr).not.toMatch(HOLDING);
    expect(worker.output() + result.stderr).not.toMatch(CANNOT_OPEN);
    const runners = await fetchJobRunners(fx);
    expect(runners.get(`${hostname()}/${worker.pid}`)).toBeGreaterThan(0);
    expect(runners.get(`${hostname()}/${backfill.pid}`)).toBeGreaterThan(0);
    const conversations = await queryFile(fx.config.db, 'SELECT count(*)::INTEGER AS n FROM conversations');
    expect(conversations[0]!.n).toBeGreaterThan(0);

    worker.kill('SIGTERM');
    const stopped = await worker.done;
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toMatch(/worker stopped/);
  });
});

describe('the worker holding the lease killed mid-run', () => {
  let clean: EngineFixture;
  let fx: EngineFixture;
  beforeAll(async () => {
    [clean, fx] = await Promise.all([engineFixture('processes-clean'), engineFixture('processes-kill')]);
  });
  afterAll(async () => Promise.all([clean?.cleanup(), fx?.cleanup()]));

  it('passes the lease on, and the run completes with the tables of a clean run', async () => {
    const reference = await runInProcess(clean, { kind: 'backfill', today: TODAY, from: FROM, to: TODAY, streams: STREAMS.split(',') });
    expect(reference.meta.status).toBe('complete');

    // Slow answers keep the run going long enough to kill its writer in the middle.
    fx.sim.setKnobs({ latencyMs: 25 });
    const worker = spawn(fx, ['worker'], FAST_TAKEOVER);
    await worker.waitFor(HOLDING);
    const backfill = spawn(fx, ['backfill', '--from', FROM, '--to', TODAY, '--today', TODAY, '--streams', STREAMS], FAST_TAKEOVER);

    const connection = connectRedis(fx.redisUrl);
    let atKill: { planned: number; done: number };
    try {
      const runs = new RunStore(connection, fx.config.redisPrefix);
      for (;;) {
        const [run] = await runs.recent(1);
        const progress = run ? await runs.progress(run.runId) : { planned: 0, done: 0 };
        if (run?.phase === 1 && progress.planned > 0 && progress.done >= progress.planned / 4) {
          atKill = progress;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      connection.disconnect();
    }
    worker.kill('SIGKILL');
    expect(atKill.done).toBeLessThan(atKill.planned);
    expect((await worker.done).signal).toBe('SIGKILL');

    const result = await backfill.done;
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout).toMatch(/: complete;/);
    // The backfill's own worker took the lease over and opened the file on its first try.
    expect(result.stderr).toMatch(HOLDING);
    expect(result.stderr).not.toMatch(CANNOT_OPEN);

    // last_seen_day of topics and scenarios is left out: it is merged from whichever day's visibility slice commits
    // last, so it depends on commit order, which differs between any two runs (a finding reported to the streams).
    expect(await tableDifferences(clean.config.db, fx.config.db, ['topics.last_seen_day', 'scenarios.last_seen_day'])).toEqual([]);
    const state = (db: string) =>
      queryFile(db, `SELECT brand_id, stream, slice_key, "day"::VARCHAR AS day, status, "rows", total_rows FROM _sync_state ORDER BY ALL`);
    const states = await state(fx.config.db);
    expect(states.length).toBeGreaterThan(50);
    expect(states).toEqual(await state(clean.config.db));
  });
});
