import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { prefixWarehouse } from '../../src/engine/prefix-warehouse.js';
import { connectRedis } from '../../src/engine/redis.js';
import { RunStore, type RunMeta } from '../../src/engine/run-store.js';
import { identityOf } from '../../src/warehouse/published-identity.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import { cliEnv, engineFixture, queryFile, runBvsync, runInProcess, spawnBvsync, writeCliConfig, type CliProcess, type EngineFixture } from '../support/engine.js';
import { until } from '../support/until.js';
import { isFinishedRunStatus } from '../../src/vocabulary.js';

/**
 * Two `bvsync worker` processes on one Redis prefix, each seeing another file at the same BVSYNC_DB path (two hosts, each
 * with its own disk): the writer is killed mid-backfill, and the survivor finds a new empty working file at that path. It must
 * refuse it: nothing loaded into it, nothing published over the analysts' copy, the run ended failed with a message
 * naming both warehouse ids and the path; `bvsync adopt-warehouse` then makes the new file the prefix's on purpose.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-14';
const STREAMS = 'conversations,visibility,tracked_urls';
const HOLDING = /holding the DuckDB writer lease/;
const FAST_TAKEOVER = { BVSYNC_LEASE_TTL_MS: '1500', BVSYNC_JOB_LOCK_MS: '1500' };

let fx: EngineFixture;
const started: CliProcess[] = [];
function spawn(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawnBvsync([...args, '--config', writeCliConfig(fx)], cliEnv(fx, env));
  started.push(child);
  return child;
}

beforeAll(async () => {
  fx = await engineFixture('warehouse-identity');
});
afterAll(async () => {
  for (const child of started) child.kill('SIGKILL');
  await fx?.cleanup();
});

async function newestRun(until: (meta: RunMeta, progress: { planned: number; done: number }) => boolean): Promise<RunMeta> {
  const connection = connectRedis(fx.redisUrl);
  try {
    const runs = new RunStore(connection, fx.config.redisPrefix);
    for (;;) {
      const [run] = await runs.recent(1);
      if (run && until(run, await runs.progress(run.runId))) return run;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    connection.disconnect();
  }
}

describe('a writer that takes over onto another file at the same path', () => {
  it('refuses to load or publish it, and the run ends failed saying what happened and what to do', async () => {
    // The prefix's warehouse, published once: its first writer recorded its id.
    const first = await runInProcess(fx, { kind: 'backfill', today: TODAY, from: TODAY, to: TODAY, streams: ['conversations'] });
    expect(first.meta.status).toBe('complete');
    const admin = connectRedis(fx.redisUrl);
    const recorded = await prefixWarehouse(admin, fx.config.redisPrefix);
    admin.disconnect();
    const working = workingPathFor(fx.config.db);
    const published = identityOf(fx.config.db);

    // Host A's worker holds the lease and loads part of an enqueued backfill; then it dies.
    fx.sim.setKnobs({ latencyMs: 250 });
    const workerA = spawn(['worker'], FAST_TAKEOVER);
    await workerA.waitFor(HOLDING);
    const enqueued = await runBvsync(['backfill', '--from', FROM, '--to', TODAY, '--today', TODAY, '--streams', STREAMS, '--enqueue-only', '--config', writeCliConfig(fx)], cliEnv(fx));
    expect(enqueued.code, enqueued.stderr).toBe(0);
    const run = await newestRun((meta, progress) => meta.phase === 1 && progress.planned > 0 && progress.done >= 3);
    workerA.kill('SIGKILL');
    await workerA.done;

    // Host B sees another file at the same path: host A's is not there, a new empty one is (beside the published copy,
    // which a writer of it would replace).
    renameSync(working, join(fx.dir, 'host-a.work.duckdb'));
    if (existsSync(`${working}.wal`)) renameSync(`${working}.wal`, join(fx.dir, 'host-a.work.duckdb.wal'));
    await (await openWarehouse(working)).close();
    const workerB = spawn(['worker'], FAST_TAKEOVER);
    await workerB.waitFor(/is warehouse [0-9a-f-]{36}, but the Redis prefix|holding the DuckDB writer lease/);

    const connection = connectRedis(fx.redisUrl);
    const runs = new RunStore(connection, fx.config.redisPrefix);
    let meta: RunMeta | null = null;
    await until('the run to end', async () => isFinishedRunStatus((meta = await runs.get(run.runId))?.status ?? 'running'), 60_000);
    connection.disconnect();
    expect(meta!.status).toBe('failed');
    expect(recorded?.db).toBe(working);
    const error = meta!.error!;
    expect(error).toMatch(new RegExp(`^the working file ${working} is warehouse [0-9a-f-]{36}, but the Redis prefix "${fx.config.redisPrefix}" keeps its committed slices in warehouse ${recorded!.id} \\(${working} on host `));
    expect(error).not.toContain(`is warehouse ${recorded!.id}`);
    expect(error).toContain("another host's disk or volume), or the file was replaced");
    expect(error).toContain('Give every writer of the prefix the same shared storage');
    expect(error).toContain('a Redis prefix of its own');
    expect(error).toContain('bvsync adopt-warehouse');
    expect(workerB.output()).not.toMatch(HOLDING);

    // Nothing was loaded into the new file, nor published over the analysts' copy.
    workerB.kill('SIGTERM');
    expect((await workerB.done).code).toBe(0);
    expect(identityOf(fx.config.db)).toBe(published);
    expect(await queryFile(working, 'SELECT count(*)::INTEGER AS n FROM _sync_state')).toEqual([{ n: 0 }]);

    // `status` says the published copy is still the prefix's warehouse.
    const status = await runBvsync(['status', '--config', writeCliConfig(fx)], cliEnv(fx));
    expect(status.stdout).toContain(`warehouse: ${fx.config.db} is warehouse ${recorded!.id}, the one the Redis prefix "${fx.config.redisPrefix}" records`);

    // Made the prefix's warehouse on purpose, the new file takes a backfill to its end.
    fx.sim.setKnobs({ latencyMs: 0 });
    const adopted = await runBvsync(['adopt-warehouse', '--config', writeCliConfig(fx)], cliEnv(fx));
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(adopted.stdout).toContain(`now keeps its slices in ${working}`);
    expect(adopted.stdout).toContain(`it was warehouse ${recorded!.id}`);
    const again = await runBvsync(['backfill', '--from', TODAY, '--to', TODAY, '--today', TODAY, '--streams', 'conversations', '--config', writeCliConfig(fx)], cliEnv(fx));
    expect(again.code, again.stderr.slice(-2000)).toBe(0);
    expect(again.stdout).toMatch(/: complete;/);
    const adoptedId = /now keeps its slices in \S+ \(warehouse ([0-9a-f-]{36})\)/.exec(adopted.stdout)![1]!;
    const after = await runBvsync(['status', '--config', writeCliConfig(fx)], cliEnv(fx));
    expect(after.stdout).toContain(`warehouse: ${fx.config.db} is warehouse ${adoptedId}, the one the Redis prefix "${fx.config.redisPrefix}" records`);
  }, 180_000);
});
