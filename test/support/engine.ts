import { spawn } from 'node:child_process';
import { RUN_TIME_COLUMNS } from './checksums.js';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import { runToEnd, type RunProgress, type RunToEndOptions } from '../../src/engine/run/start-run.js';
import { createLogger } from '../../src/log.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { openReadOnly } from '../../src/warehouse/publish/published-database.js';
import { identityOf } from '../../src/warehouse/publish/published-identity.js';
import { readRows, type PlainRow } from '../../src/warehouse/read-rows.js';
import { deletePrefix, testRedis, TEST_REDIS_URL, uniquePrefix } from './redis.js';
import { tempDir } from './tmp.js';
import { parseConfig, type Config } from '../../src/configuration.js';

/** Everything an end-to-end test needs: a simulator, a Redis prefix of its own, a temp folder, and a config. */
export interface EngineFixture {
  sim: RunningSimulator;
  config: Config;
  redisUrl: string;
  dir: string;
  log: ReturnType<typeof createLogger>;
  cleanup(): Promise<void>;
}

export async function engineFixture(
  name: string,
  options: { sim?: SimulatorOptions; config?: Record<string, unknown> } = {},
): Promise<EngineFixture> {
  const sim = await startSimulator({ seed: 7, brands: 2, days: 10, scale: 40, today: '2026-11-20', ...options.sim });
  const dir = tempDir(name);
  const prefix = uniquePrefix(name);
  const config = parseConfig({
    api: { url: sim.url, apiKey: sim.apiKey, requestsPerSecond: 1000, retryBaseMs: 5, retryMaxMs: 50 },
    brands: sim.brands,
    db: join(dir.path, 'bv.duckdb'),
    redisPrefix: prefix,
    ...options.config,
  });
  const log = createLogger({ level: process.env.BVSYNC_TEST_LOG ?? 'silent', pretty: false });
  return {
    sim,
    config,
    redisUrl: TEST_REDIS_URL,
    dir: dir.path,
    log,
    cleanup: async () => {
      await sim.close();
      const redis = testRedis();
      await deletePrefix(redis, prefix);
      redis.disconnect();
      dir.remove();
    },
  };
}

/** Options of `runInProcess`: brands and streams default to the fixture's config, the writer lease ttl to 2 s. */
export type InProcessRunOptions = Pick<RunToEndOptions, 'kind' | 'today'> &
  Partial<Omit<RunToEndOptions, 'config' | 'redisUrl' | 'log'>>;

/** Runs a sync or backfill to its end in this process, as `bvsync sync` / `backfill` do. */
export function runInProcess(fx: EngineFixture, options: InProcessRunOptions): Promise<RunProgress> {
  return runToEnd({
    config: fx.config,
    redisUrl: fx.redisUrl,
    log: fx.log,
    brands: fx.config.brands,
    streams: fx.config.sync.streams ?? [],
    ...options,
    // The simulator's today is the worker's too: a test never depends on the real date (test/clock-free.test.ts).
    worker: { leaseTtlMs: 2_000, today: () => fx.sim.truth.today(), ...options.worker },
  });
}

/** Reads the published (or any closed) DuckDB file read-only; DATE columns should be cast to VARCHAR. */
export async function queryFile(path: string, sql: string, params?: DuckDBValue[]): Promise<PlainRow[]> {
  const db = await openReadOnly(path);
  try {
    return await readRows(db.connection, sql, params);
  } finally {
    db.close();
  }
}

/**
 * A poll of a file that only opens DuckDB once the file changed since its last answer (each open costs ~50 ms of CPU);
 * it answers undefined meanwhile, and while the file is missing or being swapped. One poll per question.
 */
export function queryOnChange(path: string): (sql: string, params?: DuckDBValue[]) => Promise<PlainRow[] | undefined> {
  let answered: string | undefined;
  return async (sql, params) => {
    // A publish renames over the path at once: it is missing only before the first.
    const identity = existsSync(path) ? identityOf(path) : undefined;
    if (identity === undefined || identity === answered) return undefined;
    const rows = await queryFile(path, sql, params).catch(() => undefined);
    if (rows !== undefined) answered = identity;
    return rows;
  };
}

/** Runs statements read-write on a closed DuckDB file, as an analyst or an earlier bvsync might have, then closes it. */
export async function runOnFile(path: string, ...statements: string[]): Promise<void> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    for (const sql of statements) await connection.run(sql);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The one value of a one-row, one-column query, as a number. */
export async function scalarOfFile(path: string, sql: string, params?: DuckDBValue[]): Promise<number> {
  const rows = await queryFile(path, sql, params);
  return Number(Object.values(rows[0] ?? {})[0] ?? 0);
}

/** A finished `bvsync` process: exit code (or the signal that ended it), and everything it printed. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running `bvsync` process. */
export interface CliProcess {
  pid: number;
  /** Resolves when the process has exited. */
  done: Promise<CliResult>;
  /** What it printed so far (stdout and stderr together, in arrival order). */
  output(): string;
  /** Resolves when `pattern` appears in its output; rejects after `timeoutMs` or if it exits first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  kill(signal?: NodeJS.Signals): void;
  /** Closes the pipe its stdout writes to, as a reader that stops reading (`| head -1`) does. */
  closeStdout(): void;
}

const REPO = join(import.meta.dirname, '..', '..');

/**
 * Writes a config file for spawned commands: the fixture's Redis prefix and sync settings; the API, brands and DB
 * are given through the environment as an operator would (see `cliEnv`).
 */
export function writeCliConfig(fx: EngineFixture, extra: Record<string, unknown> = {}): string {
  const path = join(fx.dir, 'bvsync.config.json');
  writeFileSync(
    path,
    JSON.stringify(
      {
        redisPrefix: fx.config.redisPrefix,
        api: { requestsPerSecond: 1000, retryBaseMs: 5, retryMaxMs: 50 },
        ...extra,
      },
      null,
      2,
    ),
  );
  return path;
}

/** The environment of a spawned command: the fixture's simulator (and its today), brands, DB and Redis. */
export function cliEnv(fx: EngineFixture, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    BVSYNC_API_URL: fx.sim.url,
    BVSYNC_API_KEY: fx.sim.apiKey,
    BVSYNC_BRANDS: fx.config.brands.join(','),
    BVSYNC_DB: fx.config.db,
    REDIS_URL: fx.redisUrl,
    BVSYNC_CONFIG: '',
    BVSYNC_TODAY: fx.sim.truth.today(),
    ...extra,
  };
}

/**
 * Starts `node bin/bvsync.js <args>` in the repository with the given environment; under `launcher` when given, which
 * gets node and its arguments after its own (`unshare -n sh -c SCRIPT`).
 */
export function spawnBvsync(args: string[], env: NodeJS.ProcessEnv, launcher: string[] = []): CliProcess {
  const command = [...launcher, process.execPath, join(REPO, 'bin', 'bvsync.js'), ...args];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let all = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (data: Buffer) => {
    stdout += data.toString();
    all += data.toString();
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (data: Buffer) => {
    stderr += data.toString();
    all += data.toString();
    for (const listener of listeners) listener();
  });
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  let exited = false;
  void done.then(() => {
    exited = true;
    for (const listener of listeners) listener();
  });
  return {
    pid: child.pid!,
    closeStdout: () => child.stdout.destroy(),
    done,
    output: () => all,
    waitFor: (pattern, timeoutMs = 30_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`timed out waiting for ${pattern} in:\n${all.slice(-3000)}`)),
          timeoutMs,
        );
        const check = () => {
          if (pattern.test(all)) finish();
          else if (exited) finish(new Error(`the process exited before printing ${pattern}:\n${all.slice(-3000)}`));
        };
        const finish = (error?: Error) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve();
        };
        listeners.add(check);
        check();
      }),
    kill: (signal = 'SIGTERM') => {
      child.kill(signal);
    },
  };
}

/** Runs `bvsync <args>` to its end (under `launcher`, as spawnBvsync). */
export function runBvsync(args: string[], env: NodeJS.ProcessEnv, launcher: string[] = []): Promise<CliResult> {
  return spawnBvsync(args, env, launcher).done;
}

/** Columns that say when and by which run a row was written, not what it holds. */
const RUN_COLUMNS = ['_synced_at', '_run_id'];

/**
 * Compares every table of two closed DuckDB files (bookkeeping tables aside) row for row, ignoring the columns that
 * name the run; returns the tables that differ with how many rows each side has that the other has not.
 */
export async function tableDifferences(
  pathA: string,
  pathB: string,
  /** More columns to leave out, as `table.column`. */
  ignore: string[] = [],
): Promise<Array<{ table: string; onlyInA: number; onlyInB: number }>> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(`ATTACH '${pathA.replace(/'/g, "''")}' AS a (READ_ONLY)`);
    await connection.run(`ATTACH '${pathB.replace(/'/g, "''")}' AS b (READ_ONLY)`);
    const tables = await readRows(
      connection,
      `SELECT table_name, list(column_name ORDER BY column_index) AS columns FROM duckdb_columns()
       WHERE database_name = 'a' AND NOT starts_with(table_name, '_') GROUP BY table_name ORDER BY table_name`,
    );
    const differences: Array<{ table: string; onlyInA: number; onlyInB: number }> = [];
    for (const row of tables) {
      const columns = (row.columns as string[])
        .filter(
          (column) =>
            !RUN_COLUMNS.includes(column) &&
            ![...RUN_TIME_COLUMNS, ...ignore].includes(`${String(row.table_name)}.${column}`),
        )
        .map((column) => `"${column}"`)
        .join(', ');
      const table = `"${String(row.table_name)}"`;
      const count = async (left: string, right: string) => {
        const [result] = await readRows(
          connection,
          `SELECT count(*)::INTEGER AS n FROM (SELECT ${columns} FROM ${left}.${table} EXCEPT ALL SELECT ${columns} FROM ${right}.${table})`,
        );
        return Number(result!.n);
      };
      const onlyInA = await count('a', 'b');
      const onlyInB = await count('b', 'a');
      if (onlyInA || onlyInB) differences.push({ table: String(row.table_name), onlyInA, onlyInB });
    }
    return differences;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
