import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Redis } from 'ioredis';
import { connectRedis, freePort } from '../../src/engine/redis/redis.js';
import { RunStore, type RunMeta, type StreamCounters } from '../../src/engine/run/run-store.js';
import { enqueueRun } from '../../src/engine/run/start-run.js';
import type { SimulatorOptions } from '../../src/simulator/index.js';
import { openReadOnly } from '../../src/warehouse/publish/published-database.js';
import { compareWarehouses, type ChecksumDifference } from '../support/checksums.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runInProcess,
  spawnBvsync,
  writeCliConfig,
  type CliProcess,
  type EngineFixture,
} from '../support/engine.js';

/**
 * The reliability scenarios, shared by the integration tests (few rounds, fixed moments) and `npm run chaos` (more
 * rounds, random moments). Each disturbs a backfill of the same small world and measures the result with one
 * yardstick: the checksum of every data table equals that of an undisturbed run of the same window on the same
 * simulator seed, and `_sync_state` says the same.
 */

export const TODAY = '2026-11-20';
export const FROM = '2026-11-18';
/** A subset that covers both plan phases, paged lists, daily reports and a full refresh. */
export const STREAMS = [
  'conversations',
  'visibility',
  'tracked_urls',
  'competitors',
  'product_ranking',
  'domain_details',
];
export const WORLD: SimulatorOptions = { seed: 11, brands: 2, days: 3, scale: 30, today: TODAY };
/** Short takeover timings, so a killed process's lease and jobs pass on within seconds. */
export const TAKEOVER_MS = 1500;
const FAST_TAKEOVER = { BVSYNC_LEASE_TTL_MS: String(TAKEOVER_MS), BVSYNC_JOB_LOCK_MS: String(TAKEOVER_MS) };
const FINISHED: ReadonlyArray<RunMeta['status']> = ['complete', 'incomplete', 'failed'];

/** One line of the chaos table, and what the tests assert on. */
export interface ScenarioOutcome {
  scenario: string;
  rounds: number;
  /** What was done to the run, round by round. */
  disturbed: string[];
  /** API retries and 429 pauses the run reported (RunStore counters). */
  retries: number;
  rateLimited: number;
  /** Tables whose checksum differs from the clean run's. */
  differences: ChecksumDifference[];
  /** `_sync_state` rows that differ from the clean run's (either side). */
  stateDifferences: number;
  /** The run's final status, as Redis has it. */
  status: string;
  /** Everything else that went wrong (a published file that did not open, a process that exited badly). */
  problems: string[];
}

export function survived(outcome: ScenarioOutcome): boolean {
  return (
    outcome.differences.length === 0 &&
    outcome.stateDifferences === 0 &&
    outcome.problems.length === 0 &&
    outcome.status === 'complete'
  );
}

/** The undisturbed run every scenario is measured against. */
export interface Reference {
  fx: EngineFixture;
  db: string;
  states: string[];
  seconds: number;
}

export async function cleanReference(): Promise<Reference> {
  const fx = await engineFixture('rel-clean', { sim: WORLD });
  const started = performance.now();
  const progress = await runInProcess(fx, { kind: 'backfill', today: TODAY, from: FROM, to: TODAY, streams: STREAMS });
  if (progress.meta.status !== 'complete') throw new Error(`the clean run ended ${progress.meta.status}`);
  return {
    fx,
    db: fx.config.db,
    states: await sliceStates(fx.config.db),
    seconds: (performance.now() - started) / 1000,
  };
}

/** `_sync_state` as comparable lines: which slices exist and what they hold, not which run wrote them. */
export async function sliceStates(db: string): Promise<string[]> {
  const rows = await queryFile(
    db,
    `SELECT brand_id, stream, slice_key, "day"::VARCHAR AS day, status, "rows", total_rows FROM _sync_state ORDER BY ALL`,
  );
  return rows.map((row) => JSON.stringify(row));
}

function stateDifferences(expected: string[], actual: string[]): number {
  const left = new Set(expected);
  const right = new Set(actual);
  return expected.filter((line) => !right.has(line)).length + actual.filter((line) => !left.has(line)).length;
}

/** Measures a disturbed warehouse against the reference. */
async function measure(
  reference: Reference,
  db: string,
  partial: Omit<ScenarioOutcome, 'differences' | 'stateDifferences'>,
): Promise<ScenarioOutcome> {
  if (!existsSync(db))
    return {
      ...partial,
      differences: [],
      stateDifferences: reference.states.length,
      problems: [...partial.problems, 'no published file'],
    };
  return {
    ...partial,
    differences: await compareWarehouses(reference.db, db),
    stateDifferences: stateDifferences(reference.states, await sliceStates(db)),
  };
}

function sumCounters(counters: Map<string, StreamCounters>): { retries: number; rateLimited: number; rejects: number } {
  let retries = 0;
  let rateLimited = 0;
  let rejects = 0;
  for (const c of counters.values()) {
    retries += c.retries;
    rateLimited += c.rateLimited;
    rejects += c.rejects;
  }
  return { retries, rateLimited, rejects };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns a value (not undefined), or throws after `timeoutMs`. */
async function poll<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 60_000,
  everyMs = 10,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Whether the published file opens and answers; a missing file (nothing published yet) is fine. */
async function publishedOpens(db: string): Promise<string | undefined> {
  if (!existsSync(db)) return undefined;
  try {
    const database = await openReadOnly(db);
    database.close();
    return undefined;
  } catch (error) {
    return `the published file did not open: ${(error as Error).message}`;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Crashes
// ---------------------------------------------------------------------------------------------------------------

/**
 * Where in a run a worker process is SIGKILLed:
 * - `paging`: while slices are being fetched (a share of the planned slices done, given by `at`),
 * - `transaction`: inside a slice's load transaction, just before COMMIT (a worker stopped there by the warehouse's
 *   test hook, deterministic),
 * - `commit-timing`: a few milliseconds after a slice committed, i.e. likely inside the next load (timing only),
 * - `publish`: while the run finalizes (cursors, run record, the published copy).
 */
export type KillMoment =
  | { kind: 'paging'; at: number }
  | { kind: 'transaction'; commit: number }
  | { kind: 'commit-timing'; delayMs: number }
  | { kind: 'publish' };

export function describeMoment(moment: KillMoment): string {
  switch (moment.kind) {
    case 'paging':
      return `paging@${Math.round(moment.at * 100)}%`;
    case 'transaction':
      return `in-txn#${moment.commit}`;
    case 'commit-timing':
      return `after-commit+${moment.delayMs}ms`;
    case 'publish':
      return 'publish';
  }
}

export interface CrashOptions {
  moments: KillMoment[];
  /** Delay of every API answer (ms), so a run lasts long enough to be hit; default 15. */
  latencyMs?: number;
}

/**
 * A backfill enqueued, then worked by a worker process killed with SIGKILL at each moment in turn (a new one started
 * after each kill), then finished by one last worker left alone.
 */
export async function crashScenario(reference: Reference, options: CrashOptions): Promise<ScenarioOutcome> {
  const fx = await engineFixture('rel-crash', { sim: { ...WORLD, latencyMs: options.latencyMs ?? 15 } });
  const disturbed: string[] = [];
  const problems: string[] = [];
  const children: Array<{ kill(signal?: NodeJS.Signals): void }> = [];
  const redis = connectRedis(fx.redisUrl);
  const runs = new RunStore(redis, fx.config.redisPrefix);
  try {
    const { runId } = await enqueueRun({
      config: fx.config,
      redisUrl: fx.redisUrl,
      log: fx.log,
      kind: 'backfill',
      brands: fx.config.brands,
      streams: STREAMS,
      today: TODAY,
      from: FROM,
      to: TODAY,
    });
    const meta = async () => (await runs.get(runId))!;
    for (const moment of options.moments) {
      if (FINISHED.includes((await meta()).status)) {
        disturbed.push(`${describeMoment(moment)}: run already over`);
        continue;
      }
      const before = await runs.progress(runId);
      let killed: { kill(signal?: NodeJS.Signals): void; done: Promise<unknown> };
      let hit: string;
      if (moment.kind === 'transaction') {
        const worker = hookedWorker(fx, moment.commit, { logLevel: 'info' });
        children.push(worker);
        const line = await Promise.race([
          worker.nextLine('IN_TRANSACTION', 90_000),
          poll(
            'the run to end',
            async () => (FINISHED.includes((await meta()).status) ? 'run over' : undefined),
            90_000,
            50,
          ),
        ]);
        killed = worker;
        // A miss names how the run ended, so a failure of the test says which path finished it.
        const ended = async () => {
          const { status, error } = await meta();
          return `missed: run over (${status}${error ? `: ${error}` : ''}; ${worker.stderr().slice(-600)})`;
        };
        hit = line.startsWith('IN_TRANSACTION') ? `in-txn (${line.split(' ').slice(1).join(' ')})` : await ended();
      } else {
        const worker = spawnBvsync(
          ['worker', '--log-level', 'debug', '--config', writeCliConfig(fx)],
          cliEnv(fx, FAST_TAKEOVER),
        );
        children.push(worker);
        killed = worker;
        if (moment.kind === 'paging') {
          hit = await poll(
            'a share of the slices done',
            async () => {
              const status = (await meta()).status;
              if (FINISHED.includes(status) || status === 'finalizing') return `missed: ${status}`;
              const { planned, done } = await runs.progress(runId);
              return planned > 0 && done > before.done && done >= planned * moment.at
                ? `paging (${done}/${planned} slices)`
                : undefined;
            },
            90_000,
          );
        } else if (moment.kind === 'commit-timing') {
          await worker.waitFor(/slice committed/, 90_000).catch(() => undefined);
          await sleep(moment.delayMs);
          const { planned, done } = await runs.progress(runId);
          hit = `after a commit (${done}/${planned})`;
        } else {
          hit = await poll(
            'the run to finalize',
            async () => {
              const status = (await meta()).status;
              return status === 'finalizing' || FINISHED.includes(status) ? status : undefined;
            },
            120_000,
            1,
          );
          hit = hit === 'finalizing' ? 'publish (finalizing)' : `missed: ${hit}`;
        }
      }
      killed.kill('SIGKILL');
      await killed.done;
      disturbed.push(`${describeMoment(moment)}: ${hit}`);
      const broken = await publishedOpens(fx.config.db);
      if (broken) problems.push(`after ${describeMoment(moment)}: ${broken}`);
    }
    // The last worker is left alone to finish the run.
    const last = spawnBvsync(['worker', '--config', writeCliConfig(fx)], cliEnv(fx, FAST_TAKEOVER));
    children.push(last);
    const final = await poll(
      'the run to finish after the kills',
      async () => {
        const current = await meta();
        return FINISHED.includes(current.status) ? current : undefined;
      },
      180_000,
      100,
    );
    last.kill('SIGTERM');
    const stopped = await last.done;
    if (stopped.code !== 0)
      problems.push(`the last worker exited ${stopped.code ?? stopped.signal}: ${stopped.stderr.slice(-500)}`);
    const broken = await publishedOpens(fx.config.db);
    if (broken) problems.push(broken);
    const { retries, rateLimited } = sumCounters(await runs.counters(runId));
    return await measure(reference, fx.config.db, {
      scenario: 'crash',
      rounds: options.moments.length,
      disturbed,
      retries,
      rateLimited,
      status: final.status,
      problems,
    });
  } finally {
    for (const child of children) child.kill('SIGKILL');
    redis.disconnect();
    await fx.cleanup();
  }
}

export interface HookedWorker {
  kill(signal?: NodeJS.Signals): void;
  done: Promise<unknown>;
  nextLine(prefix: string, timeoutMs: number): Promise<string>;
  /** What it wrote to stderr so far (its log, when given a `logLevel`). */
  stderr(): string;
}

/**
 * A worker process that stops inside the load transaction of its `commit`th slice (fixtures/hooked-worker.ts); with
 * `freezeInTransaction`, it goes on there when sent SIGCONT. Its lease and job locks pass on after TAKEOVER_MS, for the
 * crashes that need a takeover; `takeover: false` keeps the defaults, so a loaded machine's late renewal cannot hand the
 * lease or a job on where no test asked for it.
 */
export function hookedWorker(
  fx: EngineFixture,
  commit: number,
  options: { failStream?: string; takeover?: boolean; freezeInTransaction?: boolean; logLevel?: string } = {},
): HookedWorker {
  const { takeover, ...rest } = options;
  const timings = takeover === false ? {} : { leaseTtlMs: TAKEOVER_MS, lockMs: TAKEOVER_MS };
  const spec = { config: fx.config, redisUrl: fx.redisUrl, hangAtCommit: commit, ...rest, ...timings };
  const child: ChildProcess = spawnProcess(
    process.execPath,
    ['bin/run-ts.js', 'test/reliability/fixtures/hooked-worker.ts'],
    {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, RELIABILITY_WORKER: JSON.stringify(spec) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (data: Buffer) => (stderr += data.toString()));
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const listener of listeners) listener();
  });
  const done = new Promise((resolve) => child.on('close', resolve));
  return {
    kill: (signal = 'SIGTERM') => void child.kill(signal),
    done,
    stderr: () => stderr,
    nextLine: (prefix, timeoutMs) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no ${prefix} line from the hooked worker: ${stderr.slice(-2000)}`)),
          timeoutMs,
        );
        const check = () => {
          const line = lines.find((candidate) => candidate.startsWith(prefix));
          if (line) {
            clearTimeout(timer);
            listeners.delete(check);
            resolve(line);
          }
        };
        listeners.add(check);
        check();
      }),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Redis trouble
// ---------------------------------------------------------------------------------------------------------------

/** A redis-server of a test's own on a free port, which it may kill and start again on the same port. */
export class PrivateRedis {
  private child: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), 'bvsync-rel-redis-'));
  private constructor(
    readonly port: number,
    /** Keep data across restarts (append-only file, fsync always); else nothing survives a restart. */
    readonly persistent: boolean,
  ) {}

  static available(): boolean {
    const found = (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, 'redis-server')));
    return found;
  }

  static async start(persistent: boolean): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort(), persistent);
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const persistence = this.persistent
      ? ['--appendonly', 'yes', '--appendfsync', 'always', '--save', '']
      : ['--appendonly', 'no', '--save', ''];
    this.child = spawnProcess(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, ...persistence],
      { stdio: 'ignore' },
    );
    await poll(
      `redis-server on port ${this.port}`,
      async () => {
        const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
        probe.on('error', () => {});
        try {
          await probe.connect();
          // An append-only file is replayed before Redis answers commands other than PING with LOADING errors.
          await probe.dbsize();
          return true;
        } catch {
          return undefined;
        } finally {
          probe.disconnect();
        }
      },
      10_000,
      50,
    );
  }

  /** SIGSTOP, then SIGCONT: a Redis that keeps its connections open and answers nothing, as a hung server does. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  /** SIGKILL: what a crashed or OOM-killed Redis does; no shutdown save. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** How long a command may take to finish (or give up) after Redis came back. */
const COMMAND_EXIT_LIMIT_MS = 90_000;

export interface RedisTroubleOptions {
  /** Whether Redis keeps its data across the restart. */
  keepData: boolean;
  /** Share of planned slices done before Redis is killed; default 0.3. */
  at?: number;
  /** How long Redis stays down (ms); default 1,000. */
  downMs?: number;
  latencyMs?: number;
  /** Also run a long-lived `bvsync worker` beside the command, holding the writer lease first; it must ride out the
   * outage (stay up, take part again) and stop cleanly at the end. Default false. */
  withWorker?: boolean;
}

/** What a Redis scenario saw, beyond the common outcome: the first command's exit and output. */
export interface RedisTroubleOutcome extends ScenarioOutcome {
  firstExit: number | null;
  firstOutput: string;
  /** Whether the same command was run a second time (Redis lost the first run). */
  reran: boolean;
}

/**
 * `bvsync backfill` (with its in-process worker) against a private Redis that is killed mid-run and started again
 * on the same port. With data kept, the command itself must finish; with data lost it must say so and exit
 * non-zero, and running the same command again must complete the window.
 */
export async function redisTroubleScenario(
  reference: Reference,
  options: RedisTroubleOptions,
): Promise<RedisTroubleOutcome> {
  const server = await PrivateRedis.start(options.keepData);
  const fx = await engineFixture('rel-redis', { sim: { ...WORLD, latencyMs: options.latencyMs ?? 15 } });
  fx.redisUrl = server.url;
  const env = cliEnv(fx, { ...FAST_TAKEOVER, REDIS_URL: server.url });
  const args = [
    'backfill',
    '--from',
    FROM,
    '--to',
    TODAY,
    '--today',
    TODAY,
    '--streams',
    STREAMS.join(','),
    '--config',
    writeCliConfig(fx),
  ];
  const problems: string[] = [];
  const disturbed: string[] = [];
  const children: CliProcess[] = [];
  try {
    const worker = options.withWorker ? spawnBvsync(['worker', '--config', writeCliConfig(fx)], env) : undefined;
    if (worker) {
      children.push(worker);
      await worker.waitFor(/holding the DuckDB writer lease/, 30_000);
    }
    const first = spawnBvsync(args, env);
    children.push(first);
    const observer = connectRedis(server.url, { retryStrategy: () => 100 });
    observer.on('error', () => {});
    const runs = new RunStore(observer, fx.config.redisPrefix);
    const at = options.at ?? 0.3;
    const progressAtKill = await poll(
      'the backfill to be under way',
      async () => {
        const [run] = await runs.recent(1);
        if (!run) return undefined;
        const { planned, done } = await runs.progress(run.runId);
        return planned > 0 && done >= planned * at && done < planned ? `${done}/${planned}` : undefined;
      },
      90_000,
    );
    observer.disconnect();
    await server.kill();
    await sleep(options.downMs ?? 1_000);
    await server.start();
    disturbed.push(
      `redis killed at ${progressAtKill} slices, down ${options.downMs ?? 1_000} ms, restarted ${options.keepData ? 'with its data (AOF)' : 'empty'}`,
    );
    // A command that never exits after the outage is a failure to report, not a reason for the chaos run to hang.
    const firstResult = await Promise.race([first.done, sleep(COMMAND_EXIT_LIMIT_MS).then(() => undefined)]);
    if (!firstResult) {
      first.kill('SIGKILL');
      problems.push(
        `the backfill did not exit within ${COMMAND_EXIT_LIMIT_MS / 1000} s of Redis coming back: ${first.output().slice(-1500)}`,
      );
      const outcome = await measure(reference, fx.config.db, {
        scenario: `redis restart (data ${options.keepData ? 'kept' : 'lost'})`,
        rounds: 1,
        disturbed,
        retries: 0,
        rateLimited: 0,
        status: 'hung',
        problems,
      });
      return { ...outcome, firstExit: null, firstOutput: first.output(), reran: false };
    }
    let finalOutput = firstResult.stdout;
    let reran = false;
    if (firstResult.code !== 0) {
      reran = true;
      const again = spawnBvsync(args, env);
      children.push(again);
      const second = await again.done;
      finalOutput = second.stdout;
      disturbed.push(`the same command again: exit ${second.code}`);
      if (second.code !== 0) problems.push(`the second backfill exited ${second.code}: ${second.stderr.slice(-1000)}`);
    }
    if (worker) {
      // The worker rode out the outage: still running, and it stops cleanly.
      const exitedEarly = await Promise.race([worker.done.then(() => true), sleep(0).then(() => false)]);
      if (exitedEarly) problems.push(`the bvsync worker exited during the outage: ${worker.output().slice(-1000)}`);
      worker.kill('SIGTERM');
      const stopped = await worker.done;
      if (stopped.code !== 0)
        problems.push(
          `the bvsync worker exited ${stopped.code ?? stopped.signal} on SIGTERM: ${stopped.stderr.slice(-1000)}`,
        );
      const count = (pattern: RegExp) => worker.output().match(pattern)?.length ?? 0;
      disturbed.push(
        `a bvsync worker rode it out (took the writer lease ${count(/holding the DuckDB writer lease/g)} times, lost it ${count(/lost the DuckDB writer lease/g)} times)`,
      );
    }
    const status = /: complete;/.test(finalOutput)
      ? 'complete'
      : (/run \S+: (\w+);/.exec(finalOutput)?.[1] ?? 'unknown');
    const retries = Number(/(\d[\d,]*) retries/.exec(finalOutput)?.[1] ?? 0);
    const outcome = await measure(reference, fx.config.db, {
      scenario: `redis restart (data ${options.keepData ? 'kept' : 'lost'})${options.withWorker ? ' + bvsync worker' : ''}`,
      rounds: 1,
      disturbed,
      retries,
      rateLimited: 0,
      status,
      problems,
    });
    return { ...outcome, firstExit: firstResult.code, firstOutput: firstResult.stdout + firstResult.stderr, reran };
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await fx.cleanup();
    await server.stop();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// API faults and bad data
// ---------------------------------------------------------------------------------------------------------------

export interface ApiTrouble {
  name: string;
  /** Simulator knobs for the run. */
  knobs: SimulatorOptions;
  /** Client settings over the fixture's (timeouts, retry pacing). */
  api?: Partial<EngineFixture['config']['api']>;
}

/** The API troubles of the issue, each small enough for the test suite. */
export const API_TROUBLES: ApiTrouble[] = [
  {
    name: 'faults: 5xx, resets, truncated and stalled bodies',
    knobs: { faultRate: 0.2, faultKinds: ['5xx', 'reset', 'truncated', 'stall'], stallMs: 1_500 },
    api: { bodyTimeoutMs: 400, maxAttempts: 8 },
  },
  { name: '429 storm, long Retry-After', knobs: { rateLimit: 8, retryAfterSeconds: 2 } },
  {
    name: 'answers near the timeout',
    knobs: { latencyMs: 300 },
    api: { headersTimeoutMs: 450, requestTimeoutMs: 2_000 },
  },
];

/** A backfill through one kind of API trouble, in process. */
export async function apiTroubleScenario(
  reference: Reference,
  trouble: ApiTrouble,
): Promise<ScenarioOutcome & { requests: number; faults: number; faultKinds: string[]; status429: number }> {
  const fx = await engineFixture('rel-api', { sim: { ...WORLD, ...trouble.knobs } });
  Object.assign(fx.config.api, trouble.api ?? {});
  try {
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      today: TODAY,
      from: FROM,
      to: TODAY,
      streams: STREAMS,
    });
    const { retries, rateLimited } = sumCounters(progress.counters);
    const log = fx.sim.requestLog();
    const faults = log.filter((entry) => entry.fault !== undefined).length;
    const status429 = log.filter((entry) => entry.status === 429).length;
    const outcome = await measure(reference, fx.config.db, {
      scenario: `api: ${trouble.name}`,
      rounds: 1,
      disturbed: [`${describeKnobs(trouble.knobs)}: ${log.length} requests, ${faults} faults, ${status429} x 429`],
      retries,
      rateLimited,
      status: progress.meta.status,
      problems: [],
    });
    const faultKinds = [
      ...new Set(log.map((entry) => entry.fault).filter((kind): kind is string => kind !== undefined)),
    ].sort();
    return { ...outcome, requests: log.length, faults, faultKinds, status429 };
  } finally {
    await fx.cleanup();
  }
}

/** The API away for a while in the middle of a backfill: answering 503, or closing every connection unanswered. */
export interface ApiOutage {
  mode: '503' | 'reset' | 'hang';
  /** How long it is away; undefined: until the run ends. */
  outageMs: number | undefined;
  /** `sync.outageToleranceMinutes`; default the config's. */
  toleranceMinutes?: number;
  fetchThreads?: number;
  /** Client settings over the scenario's (2 attempts, 0.5 s between them at most). */
  api?: { maxAttempts?: number; headersTimeoutMs?: number };
}

/**
 * A backfill during which the API goes away once a few requests were answered, as in a deployment or a gateway
 * restart. Client retries are short (2 attempts, 0.5 s at most), so a slice that spent its four job attempts on the
 * outage (BullMQ's backoff: at most 2 + 4 + 8 s) would fail well within it.
 */
export async function apiOutageScenario(
  reference: Reference,
  outage: ApiOutage,
): Promise<
  ScenarioOutcome & {
    unanswered: number;
    answeredAfter: number;
    mostAttemptsOfOneCall: number;
    failedSlices: number;
    mostFailedSliceAttempts: number;
    failureCodes: string[];
    seconds: number;
  }
> {
  const fx = await engineFixture('rel-outage', { sim: { ...WORLD, latencyMs: 20 } });
  Object.assign(fx.config.api, { maxAttempts: 2, retryMaxMs: 500, ...outage.api });
  if (outage.toleranceMinutes !== undefined) fx.config.sync.outageToleranceMinutes = outage.toleranceMinutes;
  // Eight slices in flight, whatever round trip to Redis a busy box measures: the bounds on requests count on it.
  fx.config.sync.maxFetchConcurrency = fx.config.sync.fetchConcurrency;
  try {
    const started = performance.now();
    const run = runInProcess(fx, {
      kind: 'backfill',
      today: TODAY,
      from: FROM,
      to: TODAY,
      streams: STREAMS,
      worker: { fetchThreads: outage.fetchThreads ?? 0 },
    });
    await poll('the first answers', async () => (fx.sim.requestLog().length >= 10 ? true : undefined));
    fx.sim.setKnobs({ unavailable: outage.mode });
    const awayFrom = fx.sim.requestLog().length;
    if (outage.outageMs !== undefined) {
      await sleep(outage.outageMs);
      fx.sim.setKnobs({ unavailable: 'off' });
    }
    const progress = await run;
    const seconds = (performance.now() - started) / 1000;
    const log = fx.sim.requestLog().slice(awayFrom);
    const unansweredLog = log.filter(
      (entry) => entry.status === 503 || entry.fault === 'reset' || entry.fault === 'hang',
    );
    const unanswered = unansweredLog.length;
    // One call's attempts are its requests of the same path and query: each slice asks for its own brand, day and page.
    const attemptsByCall = new Map<string, number>();
    for (const entry of unansweredLog) {
      const call = `${entry.path} ${JSON.stringify(entry.query)}`;
      attemptsByCall.set(call, (attemptsByCall.get(call) ?? 0) + 1);
    }
    const { retries, rateLimited } = sumCounters(progress.counters);
    const failed = await queryFile(
      fx.config.db,
      `SELECT error_code, attempts FROM _sync_state WHERE status = 'failed'`,
    );
    const failureCodes = [...new Set(failed.map((row) => String(row.error_code)))].sort();
    const outcome = await measure(reference, fx.config.db, {
      scenario: `api away (${outage.mode}) for ${outage.outageMs === undefined ? 'good' : `${outage.outageMs / 1000} s`}`,
      rounds: 1,
      disturbed: [`${unanswered} requests unanswered, ${log.length - unanswered} answered after`],
      retries,
      rateLimited,
      status: progress.meta.status,
      problems: [],
    });
    return {
      ...outcome,
      unanswered,
      answeredAfter: log.length - unanswered,
      mostAttemptsOfOneCall: Math.max(0, ...attemptsByCall.values()),
      failedSlices: failed.length,
      mostFailedSliceAttempts: Math.max(0, ...failed.map((row) => Number(row.attempts))),
      failureCodes,
      seconds,
    };
  } finally {
    fx.sim.setKnobs({ unavailable: 'off' });
    await fx.cleanup();
  }
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

function describeKnobs(knobs: SimulatorOptions): string {
  const parts: string[] = [];
  if (knobs.faultRate) parts.push(`${percent(knobs.faultRate)} faults`);
  if (knobs.rateLimit) parts.push(`${knobs.rateLimit} req/s, Retry-After ${knobs.retryAfterSeconds ?? 1} s`);
  if (knobs.latencyMs) parts.push(`${knobs.latencyMs} ms latency`);
  return parts.join(', ');
}

/** What a bad-data run loaded and rejected, for the test's checks. */
export interface BadDataOutcome extends ScenarioOutcome {
  rejected: number;
  /** Rejects the run summary counted. */
  summaryRejects: number;
  /** Rejected records without issues or raw JSON. */
  rejectsWithoutReason: number;
  /** Per data table: rows loaded + records rejected for it, against the clean run's rows. */
  conversations: { clean: number; loaded: number; rejected: number; notInClean: number };
  withExtra: number;
  unlistedEnums: number;
}

/** A backfill where some records are invalid, some carry unknown fields, some unknown enum values. */
export async function badDataScenario(
  reference: Reference,
  shares = { invalidShare: 0.05, extraFieldShare: 0.1, unknownEnumShare: 0.1 },
): Promise<BadDataOutcome> {
  const fx = await engineFixture('rel-bad-data', { sim: { ...WORLD, ...shares } });
  try {
    const progress = await runInProcess(fx, {
      kind: 'backfill',
      today: TODAY,
      from: FROM,
      to: TODAY,
      streams: STREAMS,
    });
    const db = fx.config.db;
    const count = async (sql: string, file = db) => Number((await queryFile(file, sql))[0]?.n ?? 0);
    const rejected = await count('SELECT count(*)::INTEGER AS n FROM _rejected_records');
    const conversations = {
      clean: await count('SELECT count(*)::INTEGER AS n FROM conversations', reference.db),
      loaded: await count('SELECT count(*)::INTEGER AS n FROM conversations'),
      rejected: await count(`SELECT count(*)::INTEGER AS n FROM _rejected_records WHERE stream = 'conversations'`),
      notInClean: 0,
    };
    // Every loaded conversation is one the clean run has, with the same answer (fields drift does not touch).
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      await connection.run(`ATTACH '${reference.db}' AS clean (READ_ONLY)`);
      await connection.run(`ATTACH '${db}' AS bad (READ_ONLY)`);
      const reader = await connection.runAndReadAll(
        // Unlisted enum values are the drift (model is the conversations' enum field); the rest of a row is as it was.
        `SELECT count(*)::INTEGER FROM (SELECT * EXCLUDE (_extra, _synced_at, _run_id, model) FROM bad.conversations
         EXCEPT ALL SELECT * EXCLUDE (_extra, _synced_at, _run_id, model) FROM clean.conversations)`,
      );
      conversations.notInClean = Number(reader.getRows()[0]![0]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    const { rejects: summaryRejects, retries, rateLimited } = sumCounters(progress.counters);
    const outcome: BadDataOutcome = {
      scenario: 'bad data',
      rounds: 1,
      disturbed: [
        `invalid ${percent(shares.invalidShare)}, unknown fields ${percent(shares.extraFieldShare)}, unknown enums ${percent(shares.unknownEnumShare)}`,
      ],
      retries,
      rateLimited,
      differences: [],
      stateDifferences: 0,
      status: progress.meta.status,
      problems: [],
      rejected,
      summaryRejects,
      rejectsWithoutReason: await count(
        `SELECT count(*)::INTEGER AS n FROM _rejected_records WHERE raw IS NULL OR issues IS NULL OR len(issues) = 0`,
      ),
      conversations,
      withExtra: await count(
        `SELECT count(*)::INTEGER AS n FROM conversations WHERE _extra IS NOT NULL AND json_exists(_extra, '$.x_unlisted_field')`,
      ),
      unlistedEnums: await count(
        `SELECT count(*)::INTEGER AS n FROM conversations WHERE model = 'engine_preview_unlisted'`,
      ),
    };
    if (conversations.loaded + conversations.rejected !== conversations.clean) {
      outcome.problems.push(
        `conversations: ${conversations.loaded} loaded + ${conversations.rejected} rejected <> ${conversations.clean} in the clean run`,
      );
    }
    if (conversations.notInClean > 0)
      outcome.problems.push(`${conversations.notInClean} loaded conversations differ from the clean run's`);
    if (rejected !== summaryRejects)
      outcome.problems.push(`${rejected} rejected records, but the run summary counts ${summaryRejects}`);
    if (outcome.rejectsWithoutReason > 0)
      outcome.problems.push(`${outcome.rejectsWithoutReason} rejected records without a reason or raw JSON`);
    if (rejected === 0 || outcome.withExtra === 0 || outcome.unlistedEnums === 0)
      outcome.problems.push('the drift did not show (no rejects, extras or unlisted enums)');
    outcome.disturbed.push(
      `${rejected} rejected, ${outcome.withExtra} with _extra, ${outcome.unlistedEnums} unlisted enum values`,
    );
    return outcome;
  } finally {
    await fx.cleanup();
  }
}
