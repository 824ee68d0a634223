import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/engine/redis/redis.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import {
  cliEnv,
  engineFixture,
  queryFile,
  runBvsync,
  spawnBvsync,
  writeCliConfig,
  type CliProcess,
  type CliResult,
  type EngineFixture,
} from '../support/engine.js';
import { until } from '../support/until.js';

/**
 * One run per window, as an operator meets it, with real `bvsync` processes against the simulator and its request
 * log as the meter: a backfill interrupted with Ctrl-C and run again, and two identical backfills started side by
 * side, each cost about one undisturbed backfill (at most 1.2x its requests); `bvsync cancel` drops a run and the same
 * command then plans afresh; `status` lists unfinished runs; the exit codes are those `--help` documents.
 */

const TODAY = '2026-11-20';
const FROM = '2026-11-14';
const STREAMS = 'competitors,conversations,product_ranking,tracked_urls,visibility';
const BACKFILL = ['backfill', '--from', FROM, '--to', TODAY, '--today', TODAY, '--streams', STREAMS];
/** The most requests a disturbed run may cost, as a multiple of one undisturbed run's (issue 12). */
const MAX_RATIO = 1.2;
/** Short takeover timings, so nothing waits on a default 30 s lock. */
const FAST_TAKEOVER = { BVSYNC_LEASE_TTL_MS: '1500', BVSYNC_JOB_LOCK_MS: '1500' };

let fx: EngineFixture;
let config: string;
/** API requests of one undisturbed backfill of the window. */
let undisturbed: number;
let reference: CliResult;
const started: CliProcess[] = [];

function spawn(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawnBvsync([...args, '--config', config], cliEnv(fx, { ...FAST_TAKEOVER, ...env }));
  started.push(child);
  return child;
}

function apiRequests(): number {
  return fx.sim.requestLog().filter((entry) => entry.path.startsWith('/customer/v1/')).length;
}

/** The run id a sync or backfill reported in its last line. */
function reportedRun(result: CliResult): string | undefined {
  return /^run (\S+?):? /m.exec(result.stdout.split('\n').filter(Boolean).at(-1) ?? '')?.[1];
}

/** Waits until the newest run of the prefix has `fraction` of its planned slices done; returns its id and progress. */
async function runDone(
  fraction: number,
  timeoutMs = 90_000,
): Promise<{ runId: string; planned: number; done: number }> {
  const connection = connectRedis(fx.redisUrl);
  try {
    const runs = new RunStore(connection, fx.config.redisPrefix);
    let reached: { runId: string; planned: number; done: number } | undefined;
    await until(
      `a run to reach ${fraction} of its slices`,
      async () => {
        const [run] = await runs.recent(1);
        const progress = run ? await runs.progress(run.runId) : { planned: 0, done: 0 };
        if (run?.status === 'running' && progress.planned > 0 && progress.done >= progress.planned * fraction)
          reached = { runId: run.runId, ...progress };
        return reached !== undefined;
      },
      timeoutMs,
      20,
    );
    return reached!;
  } finally {
    connection.disconnect();
  }
}

beforeAll(async () => {
  fx = await engineFixture('one-run-per-window');
  config = writeCliConfig(fx);
  // Slow answers keep a run going long enough to interrupt it, or to start a second command beside it.
  // At 40 ms, at load 30 on 2 cores, no poll saw a quarter of the interrupted run done within 30 s.
  fx.sim.setKnobs({ latencyMs: 100 });
  reference = await runBvsync([...BACKFILL, '--config', config], cliEnv(fx, FAST_TAKEOVER));
  undisturbed = apiRequests();
  fx.sim.clearRequestLog();
});

afterAll(async () => {
  for (const child of started) child.kill('SIGKILL');
  await fx?.cleanup();
});

describe('one run per window', () => {
  it('an undisturbed backfill: exit 0, complete', () => {
    expect(reference.code, reference.stderr.slice(-2000)).toBe(0);
    expect(reference.stdout).toMatch(/: complete;/);
    expect(reference.stderr).toMatch(/^started run backfill-/m);
    expect(undisturbed).toBeGreaterThan(50);
  });

  it('a backfill interrupted with Ctrl-C and run again finishes the same run, at most 1.2x the requests of one', async () => {
    const first = spawn(BACKFILL);
    const atInterrupt = await runDone(0.25);
    first.kill('SIGINT');
    const interrupted = await first.done;
    expect(interrupted.code, interrupted.stderr.slice(-2000)).toBe(1);
    expect(interrupted.stdout).toMatch(new RegExp(`run ${atInterrupt.runId} interrupted`));

    const again = await spawn(BACKFILL).done;
    expect(again.code, again.stderr.slice(-2000)).toBe(0);
    expect(again.stderr).toMatch(
      new RegExp(`attaching to unfinished run ${atInterrupt.runId} \\(started .* UTC, \\d+ of \\d+ slices done\\)`),
    );
    expect(reportedRun(again)).toBe(atInterrupt.runId);
    expect(again.stdout).toMatch(/: complete;/);
    const ratio = apiRequests() / undisturbed;
    process.stdout.write(
      `interrupted then run again: ${apiRequests()} requests vs ${undisturbed} undisturbed = ${ratio.toFixed(2)}x\n`,
    );
    expect(ratio).toBeLessThanOrEqual(MAX_RATIO);
    fx.sim.clearRequestLog();
  });

  it('two identical backfills side by side make one run: both exit 0 naming it, at most 1.2x the requests of one', async () => {
    const [a, b] = [spawn(BACKFILL), spawn(BACKFILL)];
    const [resultA, resultB] = await Promise.all([a.done, b.done]);
    expect(resultA.code, resultA.stderr.slice(-2000)).toBe(0);
    expect(resultB.code, resultB.stderr.slice(-2000)).toBe(0);
    expect(reportedRun(resultA)).toBeDefined();
    expect(reportedRun(resultA)).toBe(reportedRun(resultB));
    expect(
      [resultA.stderr, resultB.stderr].filter((stderr) => /attaching to unfinished run/.test(stderr)),
    ).toHaveLength(1);
    const ratio = apiRequests() / undisturbed;
    process.stdout.write(
      `side by side: ${apiRequests()} requests vs ${undisturbed} undisturbed = ${ratio.toFixed(2)}x\n`,
    );
    expect(ratio).toBeLessThanOrEqual(MAX_RATIO);
    fx.sim.clearRequestLog();
  });
});

describe('status and cancel', () => {
  it('a queued run: status lists it, cancel drops it (exit 0), and the same command then plans afresh', async () => {
    const enqueued = await runBvsync([...BACKFILL, '--enqueue-only', '--config', config], cliEnv(fx));
    expect(enqueued.code, enqueued.stderr).toBe(0);
    const runId = /^run (\S+) enqueued/m.exec(enqueued.stdout)?.[1];
    expect(runId).toBeDefined();
    // Nothing is done yet, so no table of slices per stream, which would be empty.
    expect(enqueued.stdout).not.toContain('│ brand │');

    const status = await runBvsync(['status', '--config', config], cliEnv(fx));
    expect(status.code, status.stderr).toBe(0);
    const unfinished = status.stdout.slice(0, status.stdout.indexOf('Recent runs'));
    expect(unfinished).toMatch(/Unfinished runs/);
    const line = unfinished.split('\n').find((text) => text.includes(runId!));
    expect(line).toBeDefined();
    for (const part of ['backfill', 'planning', `${FROM}..${TODAY}`, '1,2', STREAMS, '0/0'])
      expect(line).toContain(part);
    // Enqueued with no worker running: nothing will move it until one starts.
    expect(unfinished).toContain('No bvsync process is connected to the queues, so these runs move nowhere');

    const cancel = await runBvsync(['cancel', runId!, '--config', config], cliEnv(fx));
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(cancel.stdout).toMatch(
      new RegExp(
        `^cancelled run ${runId} \\(backfill ${FROM}..${TODAY}, brands 1,2, streams ${STREAMS}\\): removed 0 queued fetch jobs and 1 load job`,
        'm',
      ),
    );
    const after = await runBvsync(['status', '--config', config], cliEnv(fx));
    expect(after.stdout.slice(0, after.stdout.indexOf('Recent runs'))).not.toContain(runId!);
    // Only the preflight's one request per brand (its key check) reached the API: no slice of the run was fetched.
    const requests = fx.sim.requestLog().filter((entry) => entry.path.startsWith('/customer/v1/'));
    expect(requests.map((entry) => entry.path).sort()).toEqual([
      '/customer/v1/brands/1/competitors',
      '/customer/v1/brands/2/competitors',
    ]);
    fx.sim.clearRequestLog();

    const afresh = await spawn(BACKFILL).done;
    expect(afresh.code, afresh.stderr.slice(-2000)).toBe(0);
    expect(afresh.stderr).not.toMatch(/attaching/);
    expect(reportedRun(afresh)).not.toBe(runId);
    expect(apiRequests()).toBe(undisturbed);
    // The new run's writer recorded the cancelled one before planning its own.
    const rows = await queryFile(
      fx.config.db,
      'SELECT run_id, status FROM _sync_runs WHERE run_id IN ($1, $2) ORDER BY status',
      [runId!, reportedRun(afresh)!],
    );
    expect(rows).toEqual([
      { run_id: runId, status: 'cancelled' },
      { run_id: reportedRun(afresh), status: 'complete' },
    ]);
    fx.sim.clearRequestLog();
  });

  it('a running run: cancel stops it, and the commands waiting on it say so and exit 1', async () => {
    // Paced at 3 requests a second, its fetching lasts about 30 s: long enough to start a command beside it and cancel it.
    const slow = join(fx.dir, 'slow.json');
    writeFileSync(
      slow,
      JSON.stringify({
        redisPrefix: fx.config.redisPrefix,
        api: { requestsPerSecond: 3, retryBaseMs: 5, retryMaxMs: 50 },
      }),
    );
    const [first, second] = [0, 1].map(() => spawnBvsync([...BACKFILL, '--config', slow], cliEnv(fx, FAST_TAKEOVER)));
    started.push(first!, second!);
    // Both wait on the one run before it is cancelled: one started it, the other attached.
    await Promise.all([
      first!.waitFor(/^(started run|attaching to unfinished run)/m),
      second!.waitFor(/^(started run|attaching to unfinished run)/m),
    ]);
    expect(first!.output() + second!.output()).toMatch(/attaching to unfinished run/);
    const atCancel = await runDone(0);
    const cancel = await runBvsync(['cancel', atCancel.runId, '--config', config], cliEnv(fx));
    const requestsAtCancel = apiRequests();
    expect(cancel.code, cancel.stderr).toBe(0);
    const removed = new RegExp(
      `^cancelled run ${atCancel.runId} .*: removed ([\\d,]+) queued fetch jobs? and ([\\d,]+) load jobs?`,
      'm',
    ).exec(cancel.stdout);
    expect(removed, cancel.stdout).not.toBeNull();
    expect(Number(removed![1]!.replaceAll(',', ''))).toBeGreaterThan(0);
    for (const result of await Promise.all([first!.done, second!.done])) {
      expect(result.code, result.stderr.slice(-2000)).toBe(1);
      expect(result.stdout).toMatch(new RegExp(`^run ${atCancel.runId}: cancelled \\(bvsync cancel\\)`, 'm'));
    }
    // The queued slices were dropped: after the cancel, only the slices already being fetched (at most 8 per process,
    // each one request in this window) made requests.
    const afterCancel = apiRequests() - requestsAtCancel;
    process.stdout.write(
      `cancelled: ${removed![1]} queued fetch jobs dropped; ${requestsAtCancel} requests before, ${afterCancel} after; a whole run makes ${undisturbed}\n`,
    );
    expect(afterCancel).toBeLessThanOrEqual(2 * fx.config.sync.fetchConcurrency);
    expect(apiRequests()).toBeLessThan(undisturbed);
    const again = await runBvsync(['cancel', atCancel.runId, '--config', config], cliEnv(fx));
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already cancelled/);
    fx.sim.clearRequestLog();
  });
});

describe('exit codes', () => {
  it('--help documents them', async () => {
    const help = await runBvsync(['--help'], cliEnv(fx));
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes:\n\s+0 +done/);
    expect(help.stdout).toMatch(
      /^\s+1 +the run finished with failed slices, with a brand's stream none of whose slices is complete,\n\s+or with a stream it could plan nothing for; was cancelled/m,
    );
    expect(help.stdout).toMatch(/^\s+2 +usage or config error/m);
  });

  it('1: the run finished with a failed slice', async () => {
    // The preflight skips the brand the key cannot read (a brand no key reads at all would be a config error, 2); its
    // slice is recorded failed and the run, which loaded brand 1, finishes with it.
    const result = await runBvsync(
      [
        'backfill',
        '--from',
        TODAY,
        '--today',
        TODAY,
        '--streams',
        'competitors',
        '--brand',
        '1',
        '--brand',
        String(fx.sim.forbiddenBrand),
        '--config',
        config,
      ],
      cliEnv(fx),
    );
    expect(result.code, result.stderr.slice(-2000)).toBe(1);
    expect(result.stdout).toMatch(/: incomplete;.* 1 failed/);
  });

  it('2: a wrong command line, an invalid config, an unknown run to cancel', async () => {
    const broken = join(fx.dir, 'broken.json');
    writeFileSync(broken, '{ not json');
    const cases: string[][] = [
      ['backfill', '--from', '2026-13-01', '--config', config],
      ['backfill', '--from', TODAY, '--no-such-option', '--config', config],
      ['no-such-command'],
      ['sync', '--config', broken],
      ['cancel', 'no-such-run', '--config', config],
    ];
    const results = await Promise.all(cases.map((args) => runBvsync(args, cliEnv(fx))));
    results.forEach((result, index) => {
      expect(result.code, `${cases[index]!.join(' ')}\n${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(/\S/);
    });
  });
});
