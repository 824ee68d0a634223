/**
 * What the scenarios share: a simulator in a child process (so the API twin never shares a thread with what is
 * measured), a backfill or sync run to its end in a child process of its own (so its peak RSS is its own), and
 * the simulator's request log read through its admin endpoint. Everything talks to 127.0.0.1 only.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { LoggedRequest } from '../src/simulator/index.js';
import { deletePrefix, testRedis, uniquePrefix } from '../test/support/redis.js';
import { tempDir } from '../test/support/tmp.js';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The simulator's today in every scenario, so runs are repeatable. */
export const TODAY = '2026-11-20';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface SimProcessOptions {
  /** Answers per brand per day; default 100. */
  scale?: number;
  /** Days of data ending on TODAY; default 30. */
  days?: number;
  /** Delay before each answer (ms); default 0. */
  latencyMs?: number;
  /** Requests per second per key before 429s; default 0 (none). */
  rateLimit?: number;
  /** Answers the simulator keeps generated; default the simulator's (250,000). */
  maxCachedAnswers?: number;
  /** Brands served; default 1. */
  brands?: number;
}

export interface SimProcess {
  url: string;
  apiKey: string;
  /** Every API request answered so far (admin requests excluded). */
  requests(): Promise<LoggedRequest[]>;
  clearRequests(): Promise<void>;
  /** Sets knobs at run time (`POST /__admin/knobs`). */
  setKnobs(knobs: Record<string, unknown>): Promise<void>;
  stop(): Promise<void>;
}

/** `bvsync simulate` for one brand, in its own process, on a free port of 127.0.0.1. */
export async function startSimProcess(options: SimProcessOptions = {}): Promise<SimProcess> {
  const args = [
    'bin/bvsync.js',
    'simulate',
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--json',
    '--log-level',
    'warn',
    '--today',
    TODAY,
    '--brands',
    String(options.brands ?? 1),
  ];
  args.push('--days', String(options.days ?? 30), '--scale', String(options.scale ?? 100));
  args.push('--latency-ms', String(options.latencyMs ?? 0), '--rate-limit', String(options.rateLimit ?? 0));
  if (options.maxCachedAnswers) args.push('--max-cached-answers', String(options.maxCachedAnswers));
  const child = spawn(process.execPath, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  const facts = JSON.parse(line) as { url: string; api_key: string };
  const admin = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${facts.url}${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    if (!response.ok) throw new Error(`simulator admin ${method} ${path}: ${response.status}`);
    return response.json();
  };
  return {
    url: facts.url,
    apiKey: facts.api_key,
    requests: async () => ((await admin('GET', '/__admin/requests')) as { data: LoggedRequest[] }).data,
    clearRequests: async () => {
      await admin('DELETE', '/__admin/requests');
    },
    setKnobs: async (knobs) => {
      await admin('POST', '/__admin/knobs', knobs);
    },
    stop: () => stopChild(child),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

/**
 * The node flags bvsync is started with (bin/bvsync.js's first line, the Dockerfile's entry point, the npm scripts):
 * the memory targets are for bvsync as started.
 */
export const SHIPPED_NODE_OPTIONS = '--max-old-space-size=192 --max-semi-space-size=8';

/**
 * Runs `work` with the image's `MALLOC_ARENA_MAX=2` (Dockerfile) in this process's environment, which the children
 * it starts inherit: glibc reads it when a process starts, so it is set around the spawns.
 */
export async function withShippedEnvironment<T>(work: () => Promise<T>): Promise<T> {
  const arenas = process.env.MALLOC_ARENA_MAX;
  process.env.MALLOC_ARENA_MAX = '2';
  try {
    return await work();
  } finally {
    if (arenas === undefined) delete process.env.MALLOC_ARENA_MAX;
    else process.env.MALLOC_ARENA_MAX = arenas;
  }
}

/** What `bench/run-child.ts` is asked to do. */
export interface ChildRunSpec {
  kind: 'backfill' | 'sync';
  url: string;
  apiKey: string;
  /** The working/published database of the run (kept between runs of one scenario). */
  db: string;
  redisPrefix: string;
  streams: string[];
  from?: string;
  to?: string;
  /** `api.requestsPerSecond`; default 10,000 (no limit of ours). */
  requestsPerSecond?: number | 'auto';
  /** `sync.fetchConcurrency`; default the config's. */
  fetchConcurrency?: number;
  /** `sync.fetchThreads`; default the config's. */
  fetchThreads?: number;
  /** Most wall time the run may take before the child gives up (ms); default 10 minutes. */
  timeoutMs?: number;
  /** NODE_OPTIONS of the child, e.g. `--max-old-space-size=128`; default none (node's defaults). */
  nodeOptions?: string;
  /** The Redis the child uses; default REDIS_URL. */
  redisUrl?: string;
  /** Brands 1..n of the simulator; default 1. */
  brands?: number;
  /** Report when fetches and commits ended and how long the writer was busy (`ChildRunReport.writer`); default off. */
  measureWriter?: boolean;
}

/** The writer against the fetches, from the engine's metrics hooks; times in seconds from the run's start. */
export interface WriterReport {
  /** Wall time commit jobs were running (the union of every slice's prepare-to-outcome span). */
  busySeconds: number;
  /** Time commit jobs had a Warehouse call open (loads and lookups; calls waiting on its one connection overlap). */
  warehouseSeconds: number;
  slicesCommitted: number;
  lastFetchSeconds: number;
  lastCommitSeconds: number;
}

/** What the child reports once its run has finished. */
export interface ChildRunReport {
  runId: string;
  status: string;
  seconds: number;
  /** Distinct records loaded (the `rows` of `_sync_state`). */
  records: number;
  /** Rows of every table together. */
  rows: number;
  planned: number;
  requests: number;
  rateLimited: number;
  retries: number;
  /** Peak resident set of the child (`process.resourceUsage().maxRSS`), in MB. */
  peakRssMb: number;
  /** Peaks of the V8 heap (heapTotal) and of buffers outside it (external + arrayBuffers), sampled every 100 ms, in MB. */
  peakHeapMb: number;
  peakExternalMb: number;
  /** CPU time of the child during the run, every thread (user + system): steadier than wall time on a shared box. */
  cpuSeconds: number;
  /** With `measureWriter`. */
  writer?: WriterReport;
}

/** Builds dist/ without type checking when a source is newer, for the scenarios that run bvsync as shipped. */
export function buildDistIfStale(): void {
  const built = spawnSync(process.execPath, ['scripts/build.js', '--if-stale', '--noCheck'], {
    cwd: REPO,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('the build of dist/ failed');
}

let shippedChild: Promise<string> | undefined;

/**
 * bench/run-child.ts as one JavaScript file whose imports of src/ load dist/, the code bvsync ships: run through tsx,
 * the child's peak RSS held some 40 MB of TypeScript loader. dist/ is built first when a source is newer.
 */
function shippedChildEntry(): Promise<string> {
  shippedChild ??= (async () => {
    buildDistIfStale();
    const src = join(REPO, 'src');
    // In bench/.build/, so the `../../sql` and `../../package.json` that dist/ resolves from itself stay in the repo.
    const outfile = join(REPO, 'bench', '.build', 'run-child.mjs');
    await build({
      entryPoints: [join(REPO, 'bench', 'run-child.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
      plugins: [
        {
          name: 'src-from-dist',
          setup(plugin) {
            plugin.onResolve({ filter: /^\.\.?\// }, (args) => {
              const path = resolve(args.resolveDir, args.path);
              if (!path.startsWith(`${src}/`)) return undefined;
              return { path: join(REPO, 'dist', path.slice(src.length + 1)), external: true };
            });
          },
        },
      ],
    });
    return outfile;
  })();
  return shippedChild;
}

/** Runs one backfill or sync to its end in a fresh process, on the shipped build, and returns what it reports. */
export async function runInChild(spec: ChildRunSpec): Promise<ChildRunReport> {
  const child = spawn(process.execPath, [await shippedChildEntry(), JSON.stringify(spec)], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      REDIS_URL: spec.redisUrl ?? REDIS_URL,
      BVSYNC_LOG_LEVEL: process.env.BVSYNC_BENCH_LOG ?? 'warn',
      NODE_OPTIONS: spec.nodeOptions ?? '',
    },
  });
  let stdout = '';
  child.stdout!.on('data', (data: Buffer) => (stdout += data.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const last = stdout.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !last.startsWith('{')) throw new Error(`bench child exited ${code}: ${stdout.slice(-2000)}`);
  return JSON.parse(last) as ChildRunReport;
}

/** The day `n` days before TODAY. */
export function daysBack(n: number): string {
  return new Date(Date.parse(`${TODAY}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10);
}

/** What a scenario's run gets from `withSimulator`: the simulator, a database path and a Redis prefix of its own. */
export interface BenchRunContext {
  sim: SimProcess;
  db: string;
  redisPrefix: string;
}

/**
 * Starts a simulator process, gives `work` a fresh database folder and Redis prefix, and removes all three
 * afterwards, whatever `work` did.
 */
export async function withSimulator<T>(
  name: string,
  simOptions: SimProcessOptions,
  work: (context: BenchRunContext) => Promise<T>,
): Promise<T> {
  const sim = await startSimProcess(simOptions);
  const tmp = tempDir(name);
  const redisPrefix = uniquePrefix(name);
  try {
    return await work({ sim, db: join(tmp.path, 'bv.duckdb'), redisPrefix });
  } finally {
    await sim.stop();
    const redis = testRedis();
    await deletePrefix(redis, redisPrefix);
    redis.disconnect();
    tmp.remove();
  }
}

/** A backfill of conversations over the last `days` days, as most scenarios run it. */
export function conversationsSpec(
  context: BenchRunContext,
  days: number,
  extra: Partial<ChildRunSpec> = {},
): ChildRunSpec {
  return {
    kind: 'backfill',
    url: context.sim.url,
    apiKey: context.sim.apiKey,
    db: context.db,
    redisPrefix: context.redisPrefix,
    streams: ['conversations'],
    from: daysBack(days - 1),
    to: daysBack(0),
    ...extra,
  };
}
