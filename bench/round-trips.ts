/**
 * Scenario round-trips: how many Redis round trips in sequence each step of a run waits for, counted rather than
 * timed. A backfill (every default stream, 1 brand, 2 days) runs in this process with Redis behind a proxy that
 * delays each round trip by DELAY_MS. Every command is tagged with the step that sent it: the run's start, or the
 * BullMQ job (plan, commit, finalize, fetch) being processed, its completion included. A step's commands sent within
 * half the delay of each other share a round trip; each later burst is one more. How round trips were cut:
 * docs/performance.md, "Redis latency".
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { parseConfig } from '../src/configuration.js';
import { RunStore } from '../src/engine/run/run-store.js';
import { enqueueRun } from '../src/engine/run/start-run.js';
import { WorkerHost } from '../src/engine/jobs/worker-host.js';
import { createLogger } from '../src/log.js';
import { isFinishedRunStatus } from '../src/vocabulary.js';
import { startDelayProxy } from './delay-proxy.js';
import { daysBack, REDIS_URL, TODAY, withSimulator } from './harness.js';
import type { BenchResult } from './run.js';

/** Added to every round trip: far above a step's CPU between two sends, so bursts stay apart. */
const DELAY_MS = 100;

interface Step {
  name: string;
  sends: number[];
  /** The command of each send, for `BVSYNC_BENCH_TRIPS=detail`. */
  commands: string[];
}

const current = new AsyncLocalStorage<Step>();
const steps: Step[] = [];

/** Every command sent while a step runs is timed under it. */
function tagCommands(): void {
  const prototype = Redis.prototype as unknown as { sendCommand: (...args: unknown[]) => unknown };
  const send = prototype.sendCommand;
  prototype.sendCommand = function (this: unknown, ...args: unknown[]) {
    const step = current.getStore();
    step?.sends.push(performance.now());
    step?.commands.push(String((args[0] as { name?: string }).name));
    return send.apply(this, args);
  };
  const worker = Worker.prototype as unknown as { processJob: (job: Job, ...rest: unknown[]) => unknown };
  const process = worker.processJob;
  worker.processJob = function (this: unknown, job: Job, ...rest: unknown[]) {
    const step: Step = { name: job.name, sends: [], commands: [] };
    steps.push(step);
    return current.run(step, () => process.call(this, job, ...rest));
  };
}

/** Bursts of sends more than half the delay apart: the round trips the step waited for in sequence. */
function roundTrips(step: Step): number {
  let trips = 0;
  let last = Number.NEGATIVE_INFINITY;
  for (const at of step.sends) {
    if (at - last > DELAY_MS / 2) trips += 1;
    last = at;
  }
  return trips;
}

export async function run(): Promise<BenchResult[]> {
  tagCommands();
  return withSimulator('round-trips', { brands: 1, days: 2, scale: 10 }, async (context) => {
    const url = new URL(REDIS_URL);
    const proxy = await startDelayProxy({ host: url.hostname, port: Number(url.port || 6379) }, DELAY_MS);
    const log = createLogger({ pretty: false, level: 'warn' });
    const config = parseConfig({
      api: { url: context.sim.url, apiKey: context.sim.apiKey, requestsPerSecond: 10_000 },
      brands: [1],
      db: context.db,
      redisPrefix: context.redisPrefix,
    });
    const host = new WorkerHost({ config, redisUrl: proxy.url, log, today: () => TODAY });
    const watch = new Redis(REDIS_URL);
    try {
      await host.start();
      const start: Step = { name: 'start', sends: [], commands: [] };
      steps.push(start);
      const { runId } = await current.run(start, () =>
        enqueueRun({
          config,
          redisUrl: proxy.url,
          log,
          kind: 'backfill',
          brands: [1],
          streams: [],
          today: TODAY,
          from: daysBack(1),
          to: daysBack(0),
        }),
      );
      const runs = new RunStore(watch, context.redisPrefix);
      for (;;) {
        const meta = await runs.get(runId);
        if (meta && isFinishedRunStatus(meta.status)) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const { done } = await runs.progress(runId);
      return summary(done);
    } finally {
      await host.stop();
      watch.disconnect();
      await proxy.close();
    }
  });
}

/** Each burst's commands of the first step of each name, on stderr. */
function printBursts(): void {
  for (const name of new Set(steps.map((step) => step.name))) {
    const step = steps.find((each) => each.name === name)!;
    const bursts: string[][] = [];
    step.sends.forEach((at, index) => {
      if (index === 0 || at - step.sends[index - 1]! > DELAY_MS / 2) bursts.push([]);
      bursts.at(-1)!.push(step.commands[index]!);
    });
    process.stderr.write(`${name}:\n${bursts.map((burst) => `  ${burst.join(' ')}`).join('\n')}\n`);
  }
}

function summary(slices: number): BenchResult[] {
  if (process.env.BVSYNC_BENCH_TRIPS === 'detail') printBursts();
  const byName = new Map<string, number[]>();
  for (const step of steps) byName.set(step.name, [...(byName.get(step.name) ?? []), roundTrips(step)]);
  const results: BenchResult[] = [];
  for (const [name, trips] of byName) {
    const total = trips.reduce((sum, each) => sum + each, 0);
    const counts = [...new Set(trips)].sort((a, b) => a - b).join(', ');
    results.push({
      scenario: 'round-trips',
      metric: `${name}: round trips in sequence per step`,
      value: total / trips.length,
      unit: 'trips',
      note: `${trips.length} steps, counts ${counts}, ${total} in all`,
    });
  }
  const commits = byName.get('commit') ?? [];
  results.push({
    scenario: 'round-trips',
    metric: 'commit: round trips in sequence per slice committed',
    value: commits.reduce((sum, each) => sum + each, 0) / Math.max(1, slices),
    unit: 'trips',
    note: `${slices} slices in ${commits.length} commit jobs`,
  });
  return results;
}
