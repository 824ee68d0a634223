/**
 * Scenario redis-latency: the same backfill with Redis reached directly and through a proxy that adds 5 ms and 80 ms
 * to every round trip (bench/delay-proxy.ts), each into an empty file, in one run. Targets: at most 1.5 x the direct
 * time at 5 ms, 2.5 x at 80 ms. Two backfills, each with its own rows and targets: `small` (every default stream,
 * 2 brands, 3 days), whose few seconds fixed costs dominate, then `large` (every default stream, 3 brands, 50 days),
 * the size of issue #33's own measurement. `BVSYNC_BENCH_LATENCY=small` or `large` runs only that one.
 * `BVSYNC_BENCH_PROXY_LOG=<folder>` logs every chunk sent to Redis through each proxy (`DelayProxyOptions.logFile`).
 * How round trips were cut: docs/performance.md, "Redis latency".
 */
import { join } from 'node:path';
import { startDelayProxy } from './delay-proxy.js';
import { daysBack, runInChild, withSimulator, type ChildRunReport } from './harness.js';
import type { BenchResult } from './run.js';

const TARGETS = [
  { delayMs: 5, most: 1.5 },
  { delayMs: 80, most: 2.5 },
];

interface Backfill {
  name: 'small' | 'large';
  brands: number;
  days: number;
  /** Answers per brand per day of the simulator. */
  scale: number;
}

const BACKFILLS: Backfill[] = [
  { name: 'small', brands: 2, days: 3, scale: 30 },
  { name: 'large', brands: 3, days: 50, scale: 30 },
];

async function backfill(size: Backfill, delayMs: number): Promise<ChildRunReport> {
  return withSimulator(
    `redis-latency-${size.name}-${delayMs}`,
    { brands: size.brands, days: size.days, scale: size.scale, latencyMs: 20 },
    async (context) => {
      const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      const logFolder = process.env.BVSYNC_BENCH_PROXY_LOG;
      const proxy =
        delayMs > 0
          ? await startDelayProxy({ host: url.hostname, port: Number(url.port || 6379) }, delayMs, {
              ...(logFolder ? { logFile: join(logFolder, `proxy-${size.name}-${delayMs}.log`) } : {}),
            })
          : undefined;
      try {
        const report = await runInChild({
          kind: 'backfill',
          url: context.sim.url,
          apiKey: context.sim.apiKey,
          db: context.db,
          redisPrefix: context.redisPrefix,
          streams: [],
          brands: size.brands,
          from: daysBack(size.days - 1),
          to: daysBack(0),
          ...(proxy ? { redisUrl: proxy.url } : {}),
        });
        if (report.status !== 'complete') {
          throw new Error(`the ${size.name} backfill at ${delayMs} ms ended ${report.status}`);
        }
        return report;
      } finally {
        await proxy?.close();
      }
    },
  );
}

async function measure(size: Backfill): Promise<BenchResult[]> {
  const label = `${size.name} backfill (${size.brands} brands x ${size.days} days)`;
  const direct = await backfill(size, 0);
  const results: BenchResult[] = [
    {
      scenario: 'redis-latency',
      metric: `${label}, Redis on loopback`,
      value: direct.seconds,
      unit: 's',
      note: `${direct.planned} slices, ${direct.requests} requests`,
    },
  ];
  for (const { delayMs, most } of TARGETS) {
    const delayed = await backfill(size, delayMs);
    results.push({
      scenario: 'redis-latency',
      metric: `${label}, +${delayMs} ms per Redis round trip`,
      value: delayed.seconds,
      unit: 's',
      reference: direct.seconds,
      target: `<= ${most} x loopback`,
      met: delayed.seconds <= most * direct.seconds,
      note: `${delayed.planned} slices`,
    });
  }
  return results;
}

export async function run(): Promise<BenchResult[]> {
  const only = process.env.BVSYNC_BENCH_LATENCY;
  if (only !== undefined && !BACKFILLS.some((size) => size.name === only)) {
    throw new Error(`BVSYNC_BENCH_LATENCY is ${JSON.stringify(only)}: small or large`);
  }
  const results: BenchResult[] = [];
  for (const size of BACKFILLS) {
    if (only === undefined || only === size.name) results.push(...(await measure(size)));
  }
  return results;
}
