import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from 'bullmq';
import { addDays } from '../../src/days.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runBvsync,
  runInProcess,
  writeCliConfig,
  type EngineFixture,
} from '../support/engine.js';
import { deletePrefix, testRedis } from '../support/redis.js';
import { freePort } from '../../src/engine/redis/redis.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import { FETCH_QUEUE } from '../../src/engine/jobs/queues.js';

/**
 * `bvsync status` after a backfill that reached today: the run is listed from Redis, and from the published file's
 * `_sync_runs` once Redis holds nothing (a demo's private prefix is gone when it ends); today is partial, so the
 * newest complete day is yesterday; `--json` says the same for programs.
 */

// The simulator's today, which the command takes for its own (BVSYNC_TODAY, set by cliEnv): status marks it filling up.
const TODAY = '2026-11-20';
const YESTERDAY = addDays(TODAY, -1);
// A day stream, a window stream and a list read whole: freshness has one rule for each (src/warehouse/state/complete-through.ts).
const STREAMS = ['visibility', 'conversations', 'citations', 'competitors'];

let fx: EngineFixture;
let runId: string;

interface StatusJson {
  today: string;
  redis: { error: string | null };
  unfinishedRuns: unknown[];
  recentRuns: Array<{ runId: string; kind: string; status: string; window: string; source: string }>;
  queues: Array<{ queue: string; workers: number | null }>;
  database: { path: string; exists: boolean };
  freshness: Array<Record<string, unknown>>;
  slicesNotComplete: unknown[];
}

async function status(args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runBvsync(['status', '--config', writeCliConfig(fx), ...args], cliEnv(fx));
}

beforeAll(async () => {
  fx = await engineFixture('status', { sim: { brands: 1, days: 3, scale: 10, today: TODAY } });
  const progress = await runInProcess(fx, {
    kind: 'backfill',
    today: TODAY,
    from: YESTERDAY,
    to: TODAY,
    streams: STREAMS,
  });
  expect(progress.meta.status).toBe('complete');
  runId = progress.meta.runId;
}, 120_000);
afterAll(async () => {
  await fx?.cleanup();
});

describe('bvsync status', () => {
  it('--json: the run from Redis, once; today partial and yesterday the newest complete day', async () => {
    const result = await status(['--json']);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as StatusJson;
    expect(report).toMatchObject({
      today: TODAY,
      redis: { error: null },
      unfinishedRuns: [],
      database: { path: fx.config.db, exists: true },
      slicesNotComplete: [],
    });
    expect(report.recentRuns.filter((run) => run.runId === runId)).toEqual([
      expect.objectContaining({
        kind: 'backfill',
        status: 'complete',
        window: `${YESTERDAY}..${TODAY}`,
        source: 'redis',
      }),
    ]);
    expect(report.queues.map((queue) => [queue.queue, queue.workers])).toEqual([
      ['fetch', 0],
      ['load', 0],
    ]);
    const conversations = report.freshness.find((row) => row.stream === 'conversations');
    expect(conversations).toMatchObject({
      brand: fx.sim.brands[0],
      newest_complete_day: YESTERDAY,
      age_days: 1,
      today: 'partial',
      failed: 0,
      incomplete: 0,
      rejected: 0,
    });
    // Every stream has a freshness after a complete run, and the analysts' health query finds the same days.
    expect(report.freshness.map((row) => [row.stream, row.newest_complete_day])).toEqual(
      STREAMS.map((stream) => [stream, YESTERDAY]).sort(),
    );
    const healthFile = readFileSync('sql/queries/06_sync_health.sql', 'utf8');
    // Its clock is the database's now(); given the simulator's today instead, it must agree with status.
    const clock = "CAST(now() AT TIME ZONE 'UTC' AS DATE)";
    expect(healthFile).toContain(clock);
    const healthQuery = healthFile
      .slice(healthFile.indexOf('WITH clock'))
      .replace(/;\s*$/, '')
      .replace(clock, `DATE '${TODAY}'`);
    const health = await queryFile(
      fx.config.db,
      `SELECT stream, newest_complete_day::VARCHAR AS day FROM (${healthQuery}) ORDER BY stream`,
    );
    expect(health.map((row) => [row.stream, row.day])).toEqual(
      report.freshness.map((row) => [row.stream, row.newest_complete_day]),
    );
  });

  it("leaves out runs under its Redis prefix that published another file, and says so: they are another warehouse's", async () => {
    const redis = testRedis();
    const store = new RunStore(redis, fx.config.redisPrefix);
    const other = '/elsewhere/other.duckdb';
    await store.create({
      runId: 'backfill-of-another-file',
      kind: 'backfill',
      brands: [1],
      streams: STREAMS,
      today: TODAY,
      from: TODAY,
      to: TODAY,
      status: 'complete',
      startedAt: new Date().toISOString(),
      finishedAt: new Date().toISOString(),
      phase: 2,
      published: other,
      error: null,
    });
    redis.disconnect();
    const [json, text] = await Promise.all([status(['--json']), status()]);
    const report = JSON.parse(json.stdout) as StatusJson & { otherWarehouseRuns: { count: number; files: string[] } };
    // It had been listed as this warehouse's own.
    expect(report.recentRuns.map((run) => run.runId)).toEqual([runId]);
    expect(report.otherWarehouseRuns).toEqual({ count: 1, files: [other] });
    expect(text.stdout).toContain(
      `1 more run under this Redis prefix published another file (${other}), so not listed: each warehouse needs a Redis prefix of its own`,
    );
  });

  it('says what no process moves an unfinished run: none at all, or none holding the writer (a fetch-only worker alone)', async () => {
    const redis = testRedis();
    const store = new RunStore(redis, fx.config.redisPrefix);
    // As a backfill killed mid-run leaves it: running, its process gone.
    await store.create({
      runId: 'backfill-killed',
      kind: 'backfill',
      brands: [1],
      streams: STREAMS,
      today: TODAY,
      from: TODAY,
      to: TODAY,
      status: 'running',
      startedAt: new Date().toISOString(),
      finishedAt: null,
      phase: 1,
      published: fx.config.db,
      error: null,
    });
    let fetcher: Worker | undefined;
    try {
      const alone = await status();
      expect(alone.stdout).toContain('No bvsync process is connected to the queues, so these runs move nowhere');
      fetcher = new Worker(FETCH_QUEUE, async () => undefined, {
        connection: testRedis(),
        prefix: fx.config.redisPrefix,
        autorun: false,
      });
      await fetcher.waitUntilReady();
      const [text, json] = await Promise.all([status(), status(['--json'])]);
      expect(text.stdout).toContain('No bvsync process holds the writer (the load queue has no worker)');
      expect((JSON.parse(json.stdout) as StatusJson).queues.map((queue) => [queue.queue, queue.workers])).toEqual([
        ['fetch', 1],
        ['load', 0],
      ]);
    } finally {
      await fetcher?.close();
      await fetcher?.disconnect();
      await store.update('backfill-killed', { status: 'cancelled', finishedAt: new Date().toISOString() });
      redis.disconnect();
    }
  });

  it('lists the run from _sync_runs when Redis holds nothing, and marks today partial', async () => {
    const redis = testRedis();
    await deletePrefix(redis, fx.config.redisPrefix);
    redis.disconnect();
    const [json, text] = await Promise.all([status(['--json']), status()]);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as StatusJson;
    expect(report.recentRuns).toEqual([
      expect.objectContaining({
        runId,
        kind: 'backfill',
        status: 'complete',
        window: `${YESTERDAY}..${TODAY}`,
        source: 'warehouse',
      }),
    ]);
    expect(text.code, text.stderr).toBe(0);
    const recent = text.stdout.slice(text.stdout.indexOf('Recent runs'), text.stdout.indexOf('Queues'));
    expect(recent).toMatch(/from _sync_runs/);
    expect(recent).toContain(runId);
    expect(text.stdout).toContain(`today, ${TODAY} UTC, is still filling up`);
    expect(text.stdout).toMatch(new RegExp(`│ conversations +│ ${YESTERDAY} +│ +1 │ partial `));
  });

  it('with no Redis answering: shows what the file holds, says so, and exits 1', async () => {
    const result = await runBvsync(
      ['status', '--config', writeCliConfig(fx)],
      cliEnv(fx, { REDIS_URL: `redis://127.0.0.1:${await freePort()}` }),
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^Redis: no Redis answers/m);
    expect(result.stdout).toContain('Recent runs (from _sync_runs: Redis did not answer)');
    expect(result.stdout).toContain(runId);
  });
});
