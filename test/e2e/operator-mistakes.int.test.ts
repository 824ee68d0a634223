import { holdOpen } from '../support/held-file.js';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { openQueues, writerLeaseKey } from '../../src/engine/jobs/queues.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import { runToEnd } from '../../src/engine/run/start-run.js';
import { RUN_SHUTDOWN_DEADLINE_MS } from '../../src/cli/run/run-command.js';
import { PrivateRedis } from '../reliability/scenarios.js';
import { workingPathFor } from '../../src/warehouse/paths.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runBvsync,
  runInProcess,
  runOnFile,
  spawnBvsync,
  writeCliConfig,
  type CliProcess,
  type CliResult,
  type EngineFixture,
} from '../support/engine.js';

/**
 * Operator mistakes as a user makes them, each with the real command against the simulator, its request log as the
 * count: a mistake costs a message and an exit code, not data, CPU, a run of refused requests or a hung terminal.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-18';
const STREAMS = 'conversations,visibility,tracked_urls,competitors';
/** Far above what a command that fails at its first check takes, even on a loaded machine; the bug never ended. */
const QUICK_EXIT_MS = 20_000;
const CANNOT_OPEN = /could not open the working database/;

const started: CliProcess[] = [];
const fixtures: EngineFixture[] = [];
afterAll(async () => {
  for (const child of started) child.kill('SIGKILL');
  await Promise.all(fixtures.map((fixture) => fixture.cleanup()));
});

/**
 * A simulator and a Redis prefix per case: an interrupted run stays queued and a 429 blocks the key in Redis, and
 * neither may reach the next case.
 */
let fx: EngineFixture;
let config: string;
async function freshFixture(name: string): Promise<void> {
  fx = await engineFixture(`operator-mistakes-${name}`);
  fixtures.push(fx);
  config = writeCliConfig(fx);
}

const apiRequests = () => fx.sim.requestLog().filter((entry) => entry.path.startsWith('/customer/v1/'));
const backfillArgs = (from = FROM) => [
  'backfill',
  '--from',
  from,
  '--to',
  TODAY,
  '--today',
  TODAY,
  '--streams',
  STREAMS,
  '--config',
  config,
];

/** Runs a command, killing it if it outlives `limitMs`; returns its result and how long it took. */
async function timed(args: string[], env: NodeJS.ProcessEnv, limitMs = 60_000): Promise<CliResult & { ms: number }> {
  const startedAt = Date.now();
  const child = spawnBvsync(args, env);
  started.push(child);
  const killer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  const result = await child.done;
  clearTimeout(killer);
  return { ...result, ms: Date.now() - startedAt };
}

/** Sends SIGTERM once `pattern` shows, and says how long the process took to end after it. */
async function terminateWhen(child: CliProcess, pattern: RegExp): Promise<CliResult & { afterSignalMs: number }> {
  await child.waitFor(pattern, 60_000);
  const signalledAt = Date.now();
  child.kill('SIGTERM');
  const result = await child.done;
  return { ...result, afterSignalMs: Date.now() - signalledAt };
}

describe('a database path that cannot be used', () => {
  beforeAll(() => freshFixture('paths'));
  it('a folder the system refuses to create (/proc/no-such-dir): exits 2 at once, naming the path and ENOENT', async () => {
    fx.sim.clearRequestLog();
    const result = await timed(
      ['sync', '--today', TODAY, '--config', config],
      cliEnv(fx, { BVSYNC_DB: '/proc/no-such-dir/bv.duckdb' }),
    );
    expect(result.code, result.stderr).toBe(2);
    expect(result.ms).toBeLessThan(QUICK_EXIT_MS);
    expect(result.stderr).toMatch(
      /^bvsync: cannot create the folder \/proc\/no-such-dir for the database \/proc\/no-such-dir\/bv\.duckdb: ENOENT \(no such file or directory\); set BVSYNC_DB/,
    );
    expect(apiRequests()).toEqual([]);
  });

  it('a folder that is a file: exits 2 at once, naming it and ENOTDIR, blaming no other program', async () => {
    const file = join(fx.dir, 'a-file');
    writeFileSync(file, 'not a folder\n');
    const result = await timed(
      ['sync', '--today', TODAY, '--config', config],
      cliEnv(fx, { BVSYNC_DB: join(file, 'bv.duckdb') }),
    );
    expect(result.code, result.stderr).toBe(2);
    expect(result.ms).toBeLessThan(QUICK_EXIT_MS);
    expect(result.stderr).toContain(
      `bvsync: cannot create the database ${file}/bv.duckdb: ${file} is a file, not a folder (ENOTDIR)`,
    );
    expect(result.stderr).not.toMatch(/another program/);
    expect(result.stderr.match(/^bvsync: /gm)).toHaveLength(1);
  });

  it('the same for a worker that may write', async () => {
    const result = await timed(
      ['worker', '--config', config],
      cliEnv(fx, { BVSYNC_DB: '/proc/no-such-dir/bv.duckdb' }),
    );
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/cannot create the folder \/proc\/no-such-dir .*ENOENT/);
  });

  // Before, the run wrote a new, empty working file and its publish replaced the copied file: every table but the
  // run's own slices was gone, exit 0.
  it('a published warehouse copied without its working file: exit 2 saying how to go on, the file untouched', async () => {
    const folder = join(fx.dir, 'restored');
    mkdirSync(folder, { recursive: true });
    const published = join(folder, 'bv.duckdb');
    await runOnFile(published, 'CREATE TABLE conversations AS SELECT range AS id FROM range(10)');
    const before = statSync(published);
    fx.sim.clearRequestLog();
    for (const args of [backfillArgs(), ['worker', '--config', config]]) {
      const result = await timed(args, cliEnv(fx, { BVSYNC_DB: published }));
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        `bvsync: ${published} is a published warehouse without its working file ${workingPathFor(published)}`,
      );
      expect(result.stderr).toContain(`cp ${published} ${workingPathFor(published)}`);
    }
    expect(apiRequests()).toEqual([]);
    expect(existsSync(workingPathFor(published))).toBe(false);
    expect(statSync(published).mtimeMs).toBe(before.mtimeMs);
    expect(await queryFile(published, 'SELECT count(*)::INTEGER AS n FROM conversations')).toEqual([{ n: 10 }]);
  });

  it("BVSYNC_DB naming a working file: exit 2 naming the published file to use, before it writes 'bv.work.work.duckdb'", async () => {
    const working = join(fx.dir, 'other', 'bv.work.duckdb');
    const result = await timed(backfillArgs(), cliEnv(fx, { BVSYNC_DB: working }));
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `bvsync: ${working} is a working file, which bvsync writes beside the published file analysts open; set BVSYNC_DB (config "db") to the published file (${join(fx.dir, 'other', 'bv.duckdb')})`,
    );
    expect(existsSync(join(fx.dir, 'other', 'bv.work.work.duckdb'))).toBe(false);
  });
});

describe('a run whose output is read by `head -1`', () => {
  // Every write after the reader left raises another EPIPE: one met during the stop had ended the process at once, exit
  // 0, the run left running in Redis; before that, the first was an unhandled 'error' event and a stack trace.
  it('stops as on SIGTERM once the reader is gone: exit 1, the run left queued, no stack trace', async () => {
    await freshFixture('epipe');
    // Slow enough that the run is still going when its first progress line reaches stdout.
    fx.sim.setKnobs({ latencyMs: 500 });
    const child = spawnBvsync(backfillArgs('2026-11-01'), cliEnv(fx));
    started.push(child);
    // The first progress line, of whichever step: the run has most of its work ahead of it.
    await child.waitFor(/ slices · | planning · /, 60_000);
    child.closeStdout();
    const result = await child.done;
    fx.sim.setKnobs({ latencyMs: 0 });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/stopping: the run stays queued for the next worker/);
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled 'error' event/);
  }, 90_000);
});

describe('SIGTERM to a command that is waiting or retrying', () => {
  it('a backfill retrying a working file another program holds: ends within its shutdown deadline', async () => {
    await freshFixture('held');
    mkdirSync(join(fx.dir, 'held'));
    const db = join(fx.dir, 'held', 'bv.duckdb');
    const holder = await holdOpen(workingPathFor(db));
    try {
      // The default lease timings: it would retry for about 15 s before giving up.
      const child = spawnBvsync(backfillArgs(TODAY), cliEnv(fx, { BVSYNC_DB: db }));
      started.push(child);
      const result = await terminateWhen(child, CANNOT_OPEN);
      expect(result.afterSignalMs).toBeLessThan(RUN_SHUTDOWN_DEADLINE_MS);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/interrupted/);
    } finally {
      holder.kill('SIGKILL');
    }
  }, 90_000);

  it('a backfill waiting out a 429 with a Retry-After of 5 minutes: ends within its shutdown deadline', async () => {
    await freshFixture('limited');
    fx.sim.setKnobs({ rateLimit: 1, retryAfterSeconds: 300 });
    const child = spawnBvsync([...backfillArgs(), '--brand', '1'], cliEnv(fx));
    started.push(child);
    // The progress line says what it waits for (it had repeated "0 requests · 0.0 req/s · ETA —" as if stalled).
    const result = await terminateWhen(child, /rate limited: waiting until \d{2}:\d{2}:\d{2} UTC \(\dm \d{2}s\)/);
    expect(result.afterSignalMs).toBeLessThan(RUN_SHUTDOWN_DEADLINE_MS);
    expect(result.code).toBe(1);
  }, 90_000);

  it.each([0, 1])(
    'a worker waiting out a 429 with a Retry-After of 5 minutes: stops at once, cleanly, the slice back in the queue (fetchThreads %i)',
    async (fetchThreads) => {
      await freshFixture(`limited-worker-${fetchThreads}`);
      config = writeCliConfig(fx, { sync: { fetchThreads } });
      const enqueued = await runBvsync([...backfillArgs(), '--brand', '1', '--enqueue-only'], cliEnv(fx));
      expect(enqueued.code, enqueued.stderr).toBe(0);
      fx.sim.setKnobs({ latencyMs: 300 });
      const child = spawnBvsync(['worker', '--config', config], cliEnv(fx));
      started.push(child);
      await child.waitFor(/worker started/, 60_000);
      fx.sim.setKnobs({ latencyMs: 0, rateLimit: 1, retryAfterSeconds: 300 });
      const result = await terminateWhen(child, /rate limited/);
      // Before, the wait held the stop to the worker's 30 s deadline, and the slices were cut there.
      expect(result.afterSignalMs).toBeLessThan(10_000);
      expect(result.code, result.stderr.slice(-2000)).toBe(0);
      expect(result.stdout + result.stderr).toMatch(/stopping: the slice goes back to the queue/);
      expect(result.stdout + result.stderr).toMatch(/worker stopped/);
      // Every slice waits in the queue for the next worker, none failed and none with an attempt spent.
      const redis = connectRedis(fx.redisUrl);
      const queues = openQueues(redis, fx.config.redisPrefix);
      try {
        const jobs = await queues.fetch.getJobs(['waiting', 'prioritized', 'active', 'delayed', 'failed']);
        expect(jobs.length).toBeGreaterThan(0);
        expect(jobs.map((job) => [job.data.slice.key, job.attemptsMade, job.failedReason ?? null])).toEqual(
          jobs.map((job) => [job.data.slice.key, 0, null]),
        );
        expect(await queues.fetch.getJobCounts('active', 'failed')).toEqual({ active: 0, failed: 0 });
      } finally {
        await queues.close();
        redis.disconnect();
      }
    },
    90_000,
  );

  it('a worker whose own preflight waits out a 429 with a Retry-After of 5 minutes: stops at once, exit 0, no job taken', async () => {
    await freshFixture('limited-preflight');
    // One request per 1,000 s: the preflight's second request meets the 429 however slowly the box sends it (at 1/s,
    // a loaded box spaced the two a second apart and the worker started without one).
    fx.sim.setKnobs({ rateLimit: 0.001, retryAfterSeconds: 300 });
    const child = spawnBvsync(['worker', '--config', config], cliEnv(fx));
    started.push(child);
    const result = await terminateWhen(child, /rate limited/);
    // Before, the signal killed it outright: no exit code, nothing said.
    expect(result.afterSignalMs).toBeLessThan(10_000);
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout + result.stderr).toMatch(/worker stopped before it started: no job was taken/);
  }, 90_000);

  it.skipIf(!PrivateRedis.available())(
    'a backfill whose Redis went away (needs redis-server on PATH): ends within its shutdown deadline',
    async () => {
      await freshFixture('redis-gone');
      const server = await PrivateRedis.start(false);
      try {
        fx.sim.setKnobs({ latencyMs: 200 }); // slices still running when Redis goes
        const child = spawnBvsync(backfillArgs(), cliEnv(fx, { REDIS_URL: server.url }));
        started.push(child);
        await child.waitFor(/holding the DuckDB writer lease/, 60_000);
        await server.kill();
        const result = await terminateWhen(child, /redis connection error/);
        // Closing queues waits on a Redis that is gone: the deadline ends it, saying so.
        expect(result.afterSignalMs).toBeLessThan(RUN_SHUTDOWN_DEADLINE_MS + 3_000);
        expect(result.code).toBe(1);
        expect(result.stdout + result.stderr).toMatch(
          /bvsync: could not stop cleanly within 10 s of SIGTERM \(a slice still running, or Redis not answering\)|run \S+ interrupted/,
        );
      } finally {
        await server.stop();
      }
    },
    90_000,
  );

  it('a worker retrying the writer lease: ends within --shutdown-seconds and its grace', async () => {
    await freshFixture('worker-held');
    mkdirSync(join(fx.dir, 'held-by-worker'));
    const db = join(fx.dir, 'held-by-worker', 'bv.duckdb');
    const holder = await holdOpen(workingPathFor(db));
    try {
      const child = spawnBvsync(
        ['worker', '--shutdown-seconds', '2', '--config', config],
        cliEnv(fx, { BVSYNC_DB: db }),
      );
      started.push(child);
      const result = await terminateWhen(child, CANNOT_OPEN);
      expect(result.afterSignalMs).toBeLessThan(2_000 + 5_000);
      expect(result.code, result.stderr.slice(-2000)).toBe(0);
      expect(result.stderr).toMatch(/worker stopped/);
    } finally {
      holder.kill('SIGKILL');
    }
  }, 90_000);
});

describe('an API that accepts connections and never answers', () => {
  // Before: silent for ~170 s (two brands, each try waiting out a 30 s headers timeout), then "the API key is accepted".
  it("the preflight gives up within its probe's bounds, says nothing answered, and asks about one brand only", async () => {
    await freshFixture('never-answers');
    fx.sim.setKnobs({ latencyMs: 60_000 });
    const quiet = writeCliConfig(fx, { api: { maxAttempts: 1 } });
    const child = spawnBvsync(
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
        quiet,
        '--enqueue-only',
      ],
      cliEnv(fx),
    );
    started.push(child);
    const startedAt = Date.now();
    await child.waitFor(/preflight: the API answered none of its requests/, 40_000);
    expect(Date.now() - startedAt).toBeLessThan(30_000);
    expect(child.output()).not.toMatch(/the API key is accepted/);
    // One request, about the first brand; the second is left to the run.
    const line = child
      .output()
      .split('\n')
      .find((text) => text.includes('answered none of its requests'))!;
    expect(line).toMatch(/"requests":1\b/);
    expect(line).toMatch(/"unanswered":\[1,2\]/);
    child.kill('SIGTERM');
    await child.done;
    fx.sim.setKnobs({ latencyMs: 0 });
  }, 60_000);
});

describe('a wrong API key after a good backfill', () => {
  const sliceStates = () =>
    queryFile(
      workingPathFor(fx.config.db),
      `SELECT brand_id, stream, slice_key, status, "rows", total_rows, run_id FROM _sync_state ORDER BY ALL`,
    );
  let before: Awaited<ReturnType<typeof sliceStates>>;
  let runsBefore: string[];
  const runIds = async () => {
    const connection = connectRedis(fx.redisUrl);
    try {
      return (await new RunStore(connection, fx.config.redisPrefix).recent(100)).map((run) => run.runId);
    } finally {
      connection.disconnect();
    }
  };

  beforeAll(async () => {
    await freshFixture('wrong-key');
    const good = await runBvsync(backfillArgs(), cliEnv(fx));
    expect(good.code, good.stderr.slice(-2000)).toBe(0);
    before = await sliceStates();
    expect(before.length).toBeGreaterThan(10);
    expect(before.every((slice) => slice.status === 'complete')).toBe(true);
    runsBefore = await runIds();
  }, 120_000);

  for (const command of [
    ['sync', '--today', TODAY],
    ['backfill', '--from', FROM, '--to', TODAY, '--today', TODAY],
    ['worker'],
  ]) {
    it(`${command[0]}: at most 3 requests (one), exit 2, names BVSYNC_API_KEY and bvsync doctor, never the key`, async () => {
      fx.sim.clearRequestLog();
      const wrongKey = 'bvk_wrong_key_for_the_test';
      const result = await timed([...command, '--config', config], cliEnv(fx, { BVSYNC_API_KEY: wrongKey }));
      const requests = apiRequests();
      expect(requests.length).toBeLessThanOrEqual(3);
      expect(requests).toHaveLength(1);
      expect(requests[0]!.status).toBe(401);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(
        /^bvsync: the API refused the key \(HTTP 401 unauthorized, request [0-9a-f-]+\) after 1 request; nothing was planned or fetched\. Check BVSYNC_API_KEY, or the file BVSYNC_API_KEY_FILE names \(config "api\.apiKey"\), then run `bvsync doctor`$/m,
      );
      expect(result.stdout + result.stderr).not.toContain(wrongKey);
    });
  }

  it('leaves every complete slice complete, and no run behind', async () => {
    expect(await sliceStates()).toEqual(before);
    expect(await runIds()).toEqual(runsBefore);
  });
});

describe('a brand the key cannot read beside one it can', () => {
  let result: CliResult;
  let forbidden: number;
  let db: string;

  beforeAll(async () => {
    await freshFixture('brand');
    forbidden = fx.sim.forbiddenBrand;
    db = join(fx.dir, 'brands', 'bv.duckdb');
    fx.sim.clearRequestLog();
    result = await runBvsync(backfillArgs(), cliEnv(fx, { BVSYNC_BRANDS: `1,${forbidden}`, BVSYNC_DB: db }));
  }, 120_000);

  it('costs one request for that brand', () => {
    const denied = apiRequests().filter((entry) => entry.path.startsWith(`/customer/v1/brands/${forbidden}/`));
    expect(denied.map((entry) => `${entry.status} ${entry.path}`)).toEqual([
      `403 /customer/v1/brands/${forbidden}/competitors`,
    ]);
  });

  it('loads the other brand, reports the skipped one under the summary and exits 1', async () => {
    expect(result.code, result.stderr.slice(-2000)).toBe(1);
    expect(result.stdout).toMatch(
      new RegExp(
        `^brand ${forbidden} skipped: the API key cannot read it \\(brand_access_denied, request [0-9a-f-]+\\); its slices are recorded failed without a request`,
        'm',
      ),
    );
    // Read again, that brand's slices would fail the same way: the hint to rerun with --skip-complete is not given.
    expect(result.stderr).not.toContain('--skip-complete');
    const [conversations] = await queryFile(
      db,
      'SELECT count(*) FILTER (WHERE brand_id = 1)::INTEGER AS readable, count(*) FILTER (WHERE brand_id <> 1)::INTEGER AS other FROM conversations',
    );
    expect(conversations!.readable).toBe(fx.sim.truth.totalRows(1, FROM, TODAY));
    expect(conversations!.other).toBe(0);
  });

  it("records every slice of the skipped brand failed with the API's answer and no request", async () => {
    const states = await queryFile(
      db,
      'SELECT brand_id, status, error_code, count(*)::INTEGER AS slices, sum(requests)::INTEGER AS requests, count(DISTINCT request_id)::INTEGER AS request_ids FROM _sync_state GROUP BY ALL ORDER BY ALL',
    );
    expect(states).toEqual([
      { brand_id: 1, status: 'complete', error_code: null, slices: 10, requests: 10, request_ids: 0 },
      {
        brand_id: forbidden,
        status: 'failed',
        error_code: 'brand_access_denied',
        slices: 10,
        requests: 0,
        request_ids: 1,
      },
    ]);
  });
});

describe('a brand the key cannot read, in a run with no preflight (a scheduled run)', () => {
  it("is asked once: its first 403 is remembered for the run's other slices", async () => {
    await freshFixture('no-preflight');
    const forbidden = fx.sim.forbiddenBrand;
    // One slice at a time, so no second slice of the brand is already in flight when the first meets its 403.
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      today: TODAY,
      from: FROM,
      to: TODAY,
      brands: [1, forbidden],
      streams: STREAMS.split(','),
      worker: { fetchConcurrency: 1 },
    });
    expect(progress.meta.status).toBe('incomplete');
    const denied = apiRequests().filter((entry) => entry.path.startsWith(`/customer/v1/brands/${forbidden}/`));
    expect(denied).toHaveLength(1);
    const [states] = await queryFile(
      fx.config.db,
      `SELECT count(*)::INTEGER AS slices, count(*) FILTER (WHERE status = 'failed' AND error_code = 'brand_access_denied')::INTEGER AS denied FROM _sync_state WHERE brand_id = ${forbidden}`,
    );
    expect(states).toEqual({ slices: 10, denied: 10 });
  }, 120_000);
});

/** The slices of the fixture's file by status, the refused stream's apart. */
async function slicesBesideRefusedStream(stream: string): Promise<Array<Record<string, unknown>>> {
  return queryFile(
    fx.config.db,
    `SELECT stream = '${stream}' AS refused_stream, status, error_code, count(*)::INTEGER AS slices FROM _sync_state GROUP BY ALL ORDER BY ALL`,
  );
}

function onlyRefusedStreamFailed(complete: number, failed: number): Array<Record<string, unknown>> {
  return [
    { refused_stream: false, status: 'complete', error_code: null, slices: complete },
    { refused_stream: true, status: 'failed', error_code: 'forbidden', slices: failed },
  ];
}

describe('an endpoint the key may not read (a 403 that is not brand_access_denied), in a run with no preflight', () => {
  it("fails that stream's slices, asked once per brand, and every other slice of every brand loads", async () => {
    await freshFixture('refused-endpoint');
    const other = fx.sim.brands.find((brand) => brand !== 1)!;
    fx.sim.setKnobs({ refusedPaths: ['conversations'] });
    // One slice at a time, so the refusal is met before any other slice of the stream is in flight.
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      today: TODAY,
      from: FROM,
      to: TODAY,
      brands: [1, other],
      streams: STREAMS.split(','),
      worker: { fetchConcurrency: 1 },
    });
    expect(progress.meta.status).toBe('incomplete');
    const refused = apiRequests().filter((entry) => entry.status === 403);
    expect(refused.map((entry) => entry.path).sort()).toEqual([
      `/customer/v1/brands/1/conversations`,
      `/customer/v1/brands/${other}/conversations`,
    ]);
    // Before, the first 403 was remembered as a refused key: every slice after it, of any stream or brand, failed without a request.
    expect(await slicesBesideRefusedStream('conversations')).toEqual(onlyRefusedStreamFailed(14, 6));
  }, 120_000);
});

describe("the preflight's own endpoint refused (a 403 forbidden on the competitors list, the probe)", () => {
  it('is not read as a refused key: the run goes on, and only the competitors slices fail', async () => {
    await freshFixture('refused-probe');
    fx.sim.setKnobs({ refusedPaths: ['competitors'] });
    const result = await timed(backfillArgs(), cliEnv(fx));
    // Before, the preflight took any 403 for a refused key: exit 2, "the API refused the key", nothing planned.
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).not.toMatch(/refused the key/);
    expect(result.stdout + result.stderr).toMatch(
      /refused this brand's competitors list but answered its content analyses/,
    );
    expect(await slicesBesideRefusedStream('competitors')).toEqual(onlyRefusedStreamFailed(18, 2));
  }, 120_000);

  it('is read as a refused key when a second endpoint refuses it too: exit 2 after two requests, nothing planned', async () => {
    await freshFixture('refused-probes');
    fx.sim.setKnobs({ refusedPaths: ['competitors', 'content-analyses'] });
    const result = await timed(backfillArgs(), cliEnv(fx));
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      /^bvsync: the API refused the key \(HTTP 403 forbidden, request [^)]*, on the competitors list and the content analyses both\) after 2 requests; nothing was planned or fetched/m,
    );
    expect(apiRequests().map((entry) => entry.path.replace(/^\/customer\/v1\/brands\/\d+\//, ''))).toEqual([
      'competitors',
      'content-analyses',
    ]);
  }, 60_000);
});

describe('a key whose quota is spent (a 429 whose code names a quota), in a run with no preflight', () => {
  // With a fetch thread, the error crosses the thread as its class: revived as a plain PermanentError, it was not remembered.
  it.each([0, 1])(
    'fails its slices after one request and the run ends, where it had put every slice back in the queue for ever (fetchThreads %i)',
    async (fetchThreads) => {
      await freshFixture(`quota-${fetchThreads}`);
      fx.sim.setKnobs({ quotaSpent: true });
      const progress = await runInProcess(fx, {
        kind: 'backfill',
        today: TODAY,
        from: FROM,
        to: TODAY,
        brands: [1],
        streams: STREAMS.split(','),
        worker: { fetchConcurrency: 1, fetchThreads },
      });
      expect(progress.meta.status).toBe('failed');
      expect(apiRequests().map((entry) => entry.status)).toEqual([429]);
      const [states] = await queryFile(
        fx.config.db,
        `SELECT count(*)::INTEGER AS slices, count(*) FILTER (WHERE status = 'failed' AND error_code = 'monthly_quota_exceeded')::INTEGER AS spent FROM _sync_state`,
      );
      expect(states).toEqual({ slices: 10, spent: 10 });
    },
    120_000,
  );
});

describe('a key refused in a run with no preflight (a key revoked under a running worker)', () => {
  it('is asked once: its first 401 is remembered for every other slice', async () => {
    await freshFixture('revoked');
    const revoked = { ...fx.config, api: { ...fx.config.api, apiKey: 'bvk_revoked_meanwhile' } };
    const progress = await runToEnd({
      config: revoked,
      redisUrl: fx.redisUrl,
      log: fx.log,
      kind: 'backfill',
      today: TODAY,
      from: FROM,
      to: TODAY,
      brands: [1],
      streams: STREAMS.split(','),
      worker: { leaseTtlMs: 2_000, fetchConcurrency: 1 },
    });
    expect(progress.meta.status).toBe('failed');
    expect(apiRequests().map((entry) => entry.status)).toEqual([401]);
    const [states] = await queryFile(
      fx.config.db,
      `SELECT count(*)::INTEGER AS slices, count(*) FILTER (WHERE status = 'failed' AND error_code = 'unauthorized')::INTEGER AS refused FROM _sync_state`,
    );
    expect(states).toEqual({ slices: 10, refused: 10 });
  }, 120_000);
});

describe('a day or a setting that cannot be right', () => {
  beforeAll(() => freshFixture('days'));

  const cases: Array<[string, string[], RegExp]> = [
    // A future today would move the cursors past days without data, and they never move back.
    [
      'sync --today in the future',
      ['sync', '--today', '2030-01-01'],
      /^bvsync: --today 2030-01-01 is after the real today \(\d{4}-\d{2}-\d{2}, UTC\); it is for replaying earlier days$/m,
    ],
    [
      'verify of days to come',
      ['verify', '--from', '2030-01-01', '--to', '2030-01-05'],
      /^bvsync: --from 2030-01-01 is in the future \(today is \d{4}-\d{2}-\d{2}, UTC\); verify compares days that have passed$/m,
    ],
    [
      'a log level that is none',
      ['status', '--log-level', 'verbose'],
      /^bvsync: --log-level "verbose" is not a log level; use one of trace, debug, info, warn, error, fatal, silent$/m,
    ],
    // A negative count reached DuckDB's LIMIT (exit 1), a word showed 10.
    [
      'status --runs that is no count',
      ['status', '--runs', '-1'],
      /error: option '--runs <n>' argument '-1' is invalid\. --runs must be an integer >= 1$/m,
    ],
    ['status --runs that is a word', ['status', '--runs', 'abc'], /--runs must be an integer >= 1/],
    // Read as the default streams, it attached to an unrelated run of every stream.
    [
      '--streams that names none',
      ['backfill', '--from', FROM, '--to', TODAY, '--today', TODAY, '--streams', ','],
      /^bvsync: --streams "," names no stream; give one or more, comma-separated \(visibility, .*\), or leave --streams out for the default$/m,
    ],
  ];
  it('a worker whose --metrics-port another program uses: exit 2 at once, before it takes any job', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '0.0.0.0', resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const result = await timed(
        ['worker', '--metrics-port', String(port), '--config', config],
        cliEnv(fx),
        QUICK_EXIT_MS,
      );
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        `bvsync: --metrics-port ${port} cannot be listened on (EADDRINUSE: another program uses it); pick another port`,
      );
    } finally {
      busy.close();
    }
  });

  it('a worker under a Redis prefix whose writer writes another warehouse: exit 2 at once, naming that file', async () => {
    const admin = connectRedis(fx.redisUrl);
    // The lease as another warehouse's writer holds it: its owner, then the file it writes.
    await admin.set(writerLeaseKey(fx.config.redisPrefix), 'elsewhere /elsewhere/other.duckdb', 'EX', 60);
    try {
      // Its refused start left the host's connection open, and the worker never ended.
      const result = await timed(['worker', '--config', config], cliEnv(fx), QUICK_EXIT_MS);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(
        /^bvsync: the writer working under the Redis prefix "\S+" writes \/elsewhere\/other\.duckdb, not /m,
      );
    } finally {
      await admin.del(writerLeaseKey(fx.config.redisPrefix));
      admin.disconnect();
    }
  });

  it('a demo whose --out is a file, or whose REDIS_URL answers not: exits at once, saying so', async () => {
    const file = join(fx.dir, 'demo-out-is-a-file');
    writeFileSync(file, '');
    const demo = ['demo', '--days', '1', '--brands', '1', '--scale', '1'];
    // Each failed with the demo's simulator (and Redis) open, and the demo never ended.
    const [out, redis] = await Promise.all([
      timed([...demo, '--out', file], cliEnv(fx), QUICK_EXIT_MS),
      timed([...demo, '--out', join(fx.dir, 'demo')], cliEnv(fx, { REDIS_URL: 'redis://127.0.0.1:1' }), QUICK_EXIT_MS),
    ]);
    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toContain(
      `bvsync: cannot create the demo's folder ${file}: ${file} is a file, not a folder (ENOTDIR)`,
    );
    expect(redis.code, redis.stderr).toBe(1);
    expect(redis.stderr).toMatch(/^bvsync: no Redis answers \(redis:\/\/127\.0\.0\.1:1\/?: connect ECONNREFUSED/m);
  });

  it('simulate with a port out of range, a day that does not exist, or a port in use: exit 2 naming the option', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const [range, day, used] = await Promise.all([
        runBvsync(['simulate', '--port', '99999'], cliEnv(fx)),
        runBvsync(['simulate', '--port', '0', '--today', '2026-02-30'], cliEnv(fx)),
        runBvsync(['simulate', '--port', String(port)], cliEnv(fx)),
      ]);
      expect(range).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('--port must be an integer from 0 to 65535'),
      });
      expect(day).toMatchObject({ code: 2, stderr: expect.stringContaining('--today: "2026-02-30" is not a day') });
      expect(used).toMatchObject({
        code: 2,
        stderr: expect.stringContaining(
          `bvsync: --port ${port} cannot be listened on (EADDRINUSE: another program uses it); pick another port`,
        ),
      });
    } finally {
      busy.close();
    }
  });

  for (const [name, args, message] of cases) {
    it(`${name}: exit 2 with what to do, and not one request`, async () => {
      fx.sim.clearRequestLog();
      const result = await runBvsync([...args, '--config', config], cliEnv(fx));
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(apiRequests()).toEqual([]);
    });
  }
});
