import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn as spawnProcess } from 'node:child_process';
import { holdOpen } from '../support/held-file.js';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writerLeaseKey } from '../../src/engine/jobs/queues.js';
import { prefixWarehouse, refuseOtherWarehouse } from '../../src/engine/writer/prefix-warehouse.js';
import { redisKeys } from '../../src/redis-keys.js';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore, type RunMeta } from '../../src/engine/run/run-store.js';
import { identityOf } from '../../src/warehouse/publish/published-identity.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import { openWarehouse } from '../../src/warehouse/warehouse.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runBvsync,
  runInProcess,
  spawnBvsync,
  writeCliConfig,
  type CliProcess,
  type EngineFixture,
} from '../support/engine.js';
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

/** `bvsync backfill` of today's conversations, as the CLI runs it. */
function backfillToday(env: Record<string, string> = {}) {
  const args = ['--from', TODAY, '--to', TODAY, '--today', TODAY, '--streams', 'conversations'];
  return runBvsync(['backfill', ...args, '--config', writeCliConfig(fx)], cliEnv(fx, env));
}

beforeAll(async () => {
  fx = await engineFixture('warehouse-identity');
});
afterAll(async () => {
  for (const child of started) child.kill('SIGKILL');
  await fx?.cleanup();
});

async function newestRun(
  holds: (meta: RunMeta, progress: { planned: number; done: number }) => boolean,
): Promise<RunMeta> {
  const connection = connectRedis(fx.redisUrl);
  try {
    const runs = new RunStore(connection, fx.config.redisPrefix);
    let found: RunMeta | undefined;
    await until(
      'the newest run to reach the state asked',
      async () => {
        const [run] = await runs.recent(1);
        if (run && holds(run, await runs.progress(run.runId))) found = run;
        return found !== undefined;
      },
      90_000,
      20,
    );
    return found!;
  } finally {
    connection.disconnect();
  }
}

describe('a writer that takes over onto another file at the same path', () => {
  it('refuses to load or publish it, and the run ends failed saying what happened and what to do', async () => {
    // The prefix's warehouse, published once: its first writer recorded its id.
    const first = await runInProcess(fx, {
      kind: 'backfill',
      today: TODAY,
      from: TODAY,
      to: TODAY,
      streams: ['conversations'],
    });
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
    const enqueued = await runBvsync(
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
        '--enqueue-only',
        '--config',
        writeCliConfig(fx),
      ],
      cliEnv(fx),
    );
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
    await until(
      'the run to end',
      async () => isFinishedRunStatus((meta = await runs.get(run.runId))?.status ?? 'running'),
      60_000,
    );
    connection.disconnect();
    expect(meta!.status).toBe('failed');
    expect(recorded?.db).toBe(working);
    const error = meta!.error!;
    expect(error).toMatch(
      new RegExp(
        `^the working file ${working} is warehouse [0-9a-f-]{36}, but the Redis prefix "${fx.config.redisPrefix}" keeps its committed slices in warehouse ${recorded!.id} \\(${working} on host `,
      ),
    );
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
    expect(status.stdout).toContain(
      `warehouse: ${fx.config.db} is warehouse ${recorded!.id}, the one the Redis prefix "${fx.config.redisPrefix}" records`,
    );

    // Made the prefix's warehouse on purpose, the new file takes a backfill to its end.
    fx.sim.setKnobs({ latencyMs: 0 });
    const adopted = await runBvsync(['adopt-warehouse', '--config', writeCliConfig(fx)], cliEnv(fx));
    expect(adopted.code, adopted.stderr).toBe(0);
    expect(adopted.stdout).toContain(`now keeps its slices in ${working}`);
    expect(adopted.stdout).toContain(`it was warehouse ${recorded!.id}`);
    const again = await backfillToday();
    expect(again.code, again.stderr.slice(-2000)).toBe(0);
    expect(again.stdout).toMatch(/: complete;/);
    const adoptedId = /now keeps its slices in \S+ \(warehouse ([0-9a-f-]{36})\)/.exec(adopted.stdout)![1]!;
    const after = await runBvsync(['status', '--config', writeCliConfig(fx)], cliEnv(fx));
    expect(after.stdout).toContain(
      `warehouse: ${fx.config.db} is warehouse ${adoptedId}, the one the Redis prefix "${fx.config.redisPrefix}" records`,
    );
  }, 180_000);
});

/** `bvsync worker` in a mount namespace of its own, with an empty tmpfs over `disk`: another host's disk at the same path. */
function workerOnOwnDisk(
  disk: string,
  env: NodeJS.ProcessEnv,
): { output: () => string; done: Promise<number | null>; kill: (signal: NodeJS.Signals) => void } {
  const bin = join(import.meta.dirname, '..', '..', 'bin', 'bvsync.js');
  const script = `mount -t tmpfs tmpfs "$DISK" && exec "${process.execPath}" "${bin}" worker --config "$CONFIG"`;
  const child = spawnProcess('unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script], {
    cwd: join(import.meta.dirname, '..', '..'),
    env: { ...env, DISK: disk, CONFIG: writeCliConfig(fx) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let all = '';
  child.stdout.on('data', (data: Buffer) => (all += data.toString()));
  child.stderr.on('data', (data: Buffer) => (all += data.toString()));
  const done = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { output: () => all, done, kill: (signal) => child.kill(signal) };
}

describe('two hosts on one prefix, each with its own disk at BVSYNC_DB', () => {
  it("the survivor of the writer refuses its empty disk: the run ends failed, and the dead writer's file keeps its slices", async () => {
    const disk = join(fx.dir, 'disk');
    mkdirSync(disk, { recursive: true });
    const db = join(disk, 'bv.duckdb');
    const env = { BVSYNC_DB: db, BVSYNC_REDIS_PREFIX: `${fx.config.redisPrefix}-hosts`, ...FAST_TAKEOVER };
    const prefix = env.BVSYNC_REDIS_PREFIX;
    const connection = connectRedis(fx.redisUrl);
    const runs = new RunStore(connection, prefix);
    const killed: Array<() => void> = [];
    try {
      fx.sim.setKnobs({ latencyMs: 250 });
      const workerA = spawn(['worker'], env);
      await workerA.waitFor(HOLDING);
      const enqueued = await runBvsync(
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
          '--enqueue-only',
          '--config',
          writeCliConfig(fx),
        ],
        cliEnv(fx, env),
      );
      expect(enqueued.code, enqueued.stderr).toBe(0);
      const [run] = await runs.recent(1);
      await until('host A to commit a few slices', async () => (await runs.progress(run!.runId)).done >= 3, 60_000);
      workerA.kill('SIGKILL');
      await workerA.done;

      const workerB = workerOnOwnDisk(disk, cliEnv(fx, env));
      killed.push(() => workerB.kill('SIGKILL'));
      let meta: RunMeta | null = null;
      await until(
        'the run to end',
        async () => isFinishedRunStatus((meta = await runs.get(run!.runId))?.status ?? 'running'),
        60_000,
      );
      expect(meta!.status).toBe('failed');
      expect(meta!.error).toContain(`the working file ${workingPathFor(db)} is warehouse `);
      expect(meta!.error).toContain("other storage at the same path (another host's disk or volume)");
      await until('host B to say why', () => /is warehouse [0-9a-f-]{36}, but the Redis prefix/.test(workerB.output()));
      expect(workerB.output()).not.toMatch(HOLDING);
      workerB.kill('SIGTERM');
      expect(await workerB.done).toBe(0);

      // Host A's disk holds what A committed; B published nothing there.
      expect(existsSync(db)).toBe(false);
      const [held] = await queryFile(workingPathFor(db), 'SELECT count(*)::INTEGER AS n FROM _sync_state');
      expect(held!.n).toBeGreaterThanOrEqual(3);
    } finally {
      fx.sim.setKnobs({ latencyMs: 0 });
      for (const kill of killed) kill();
      const keys = await connection.keys(`${prefix}:*`);
      if (keys.length) await connection.del(...keys);
      connection.disconnect();
    }
  }, 180_000);
});

/** A file's bytes, to show a check read it without changing it. */
function fileHash(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

describe("a sync or backfill of another warehouse's working file under a prefix that records one", () => {
  it('exits 2 before any run is recorded, saying what to do; the prefix keeps working with its own file', async () => {
    const prefix = `${fx.config.redisPrefix}-mine`;
    const mine = join(fx.dir, 'mine', 'bv.duckdb');
    const tour = join(fx.dir, 'tour', 'bvsync.duckdb');
    const fresh = join(fx.dir, 'fresh', 'bv.duckdb');
    const backfill = (db: string) => backfillToday({ BVSYNC_DB: db, BVSYNC_REDIS_PREFIX: prefix });
    const connection = connectRedis(fx.redisUrl);
    const runs = new RunStore(connection, prefix);
    try {
      const first = await backfill(mine);
      expect(first.code, first.stderr.slice(-2000)).toBe(0);
      const recorded = (await prefixWarehouse(connection, prefix))!;
      expect(recorded.db).toBe(workingPathFor(mine));
      const [firstRun] = await runs.recent(10);

      // The tutorial's file: a warehouse of its own, made under another prefix.
      mkdirSync(join(fx.dir, 'tour'), { recursive: true });
      await (await openWarehouse(workingPathFor(tour))).close();
      const [{ id: tourId }] = (await queryFile(workingPathFor(tour), 'SELECT id FROM _warehouse')) as [{ id: string }];
      const before = fileHash(workingPathFor(tour));

      const refused = await backfill(tour);
      expect(refused.code, refused.stderr.slice(-2000)).toBe(2);
      expect(refused.stderr).toContain(
        `bvsync: the working file ${workingPathFor(tour)} is warehouse ${tourId}, but the Redis prefix "${prefix}" keeps ` +
          `its committed slices in warehouse ${recorded.id} (${workingPathFor(mine)} on host `,
      );
      expect(refused.stderr).toContain('This is another file than the prefix');
      expect(refused.stderr).toContain('Nothing was started');
      expect(refused.stderr).toContain('or this command with --enqueue-only beside a worker where the file is');
      expect(refused.stderr).toContain('a Redis prefix of its own');
      expect(refused.stderr).toContain('bvsync adopt-warehouse');
      expect(refused.stderr).not.toContain('started run');
      // Read, not written: the same bytes, and no log beside it.
      expect(fileHash(workingPathFor(tour))).toBe(before);
      expect(existsSync(`${workingPathFor(tour)}.wal`)).toBe(false);

      // No file yet at a path: a writer would make one with a new id and refuse it, so it is refused first.
      const none = await backfill(fresh);
      expect(none.code, none.stderr.slice(-2000)).toBe(2);
      expect(none.stderr).toContain(
        `bvsync: the working file ${workingPathFor(fresh)} does not exist, but the Redis prefix "${prefix}" keeps its ` +
          `committed slices in warehouse ${recorded.id}`,
      );
      expect(none.stderr).toContain('Nothing was started');
      expect(existsSync(workingPathFor(fresh))).toBe(false);

      // No run was recorded for either: `status` lists the first run alone, and none unfinished.
      expect((await runs.recent(10)).map((run) => run.runId)).toEqual([firstRun!.runId]);
      expect(await runs.unfinished()).toEqual([]);
      const status = await runBvsync(
        ['status', '--json', '--config', writeCliConfig(fx)],
        cliEnv(fx, { BVSYNC_DB: mine, BVSYNC_REDIS_PREFIX: prefix }),
      );
      const report = JSON.parse(status.stdout) as { recentRuns: Array<{ runId: string; status: string }> };
      expect(report.recentRuns.map((run) => [run.runId, run.status])).toEqual([[firstRun!.runId, 'complete']]);

      // The prefix's own file still takes a backfill.
      const again = await backfill(mine);
      expect(again.code, again.stderr.slice(-2000)).toBe(0);
      expect(again.stdout).toMatch(/: complete;/);
    } finally {
      const keys = await connection.keys(`${prefix}:*`);
      if (keys.length) await connection.del(...keys);
      connection.disconnect();
    }
  }, 180_000);

  it("does not refuse a working file another process holds: the writer's own open reports it", async () => {
    const prefix = `${fx.config.redisPrefix}-held`;
    const held = join(fx.dir, 'held', 'bv.duckdb');
    mkdirSync(join(fx.dir, 'held'), { recursive: true });
    await (await openWarehouse(workingPathFor(held))).close();
    const connection = connectRedis(fx.redisUrl);
    const holder = await holdOpen(workingPathFor(held));
    try {
      await connection.set(
        redisKeys(prefix).warehouse,
        JSON.stringify({ id: 'another-id', db: '/elsewhere/bv.work.duckdb', host: 'h', since: 'then' }),
      );
      await expect(refuseOtherWarehouse(connection, prefix, held, { load: true })).resolves.toBeUndefined();
    } finally {
      holder.kill('SIGKILL');
      const keys = await connection.keys(`${prefix}:*`);
      if (keys.length) await connection.del(...keys);
      connection.disconnect();
    }
  });

  it('does not refuse a host without the file while a live writer of the same path holds the lease', async () => {
    const prefix = `${fx.config.redisPrefix}-live`;
    const absent = join(fx.dir, 'live', 'bv.duckdb');
    const connection = connectRedis(fx.redisUrl);
    try {
      await connection.set(
        redisKeys(prefix).warehouse,
        JSON.stringify({ id: 'another-id', db: workingPathFor(absent), host: 'writer-host', since: 'then' }),
      );
      await expect(refuseOtherWarehouse(connection, prefix, absent, { load: true })).rejects.toThrow(/does not exist/);
      // The writer on its own host loads this host's runs: a backfill here only fetches, as before.
      await connection.set(writerLeaseKey(prefix), `writer-id ${resolve(absent)}`);
      await expect(refuseOtherWarehouse(connection, prefix, absent, { load: true })).resolves.toBeUndefined();
      // An older writer's lease names no file; it is live all the same.
      await connection.set(writerLeaseKey(prefix), 'writer-id');
      await expect(refuseOtherWarehouse(connection, prefix, absent, { load: true })).resolves.toBeUndefined();
    } finally {
      const keys = await connection.keys(`${prefix}:*`);
      if (keys.length) await connection.del(...keys);
      connection.disconnect();
    }
  });
});
