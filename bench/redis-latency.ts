/**
 * Scenario redis-latency: the same backfill (every default stream, 2 brands, 3 days, 20 ms of API latency) with Redis
 * reached directly and through a proxy that adds 5 ms and 80 ms to every round trip (bench/delay-proxy.ts), each
 * into an empty file, in one run. Targets: at most 1.5 x the direct time at 5 ms, 2.5 x at 80 ms. The slice pipeline's
 * sequential round trips are what the delay multiplies; how they were cut: docs/performance.md, "Redis latency".
 */
import { startDelayProxy } from './delay-proxy.js';
import { daysBack, runInChild, withSimulator, type ChildRunReport } from './harness.js';
import type { BenchResult } from './run.js';

const TARGETS = [
  { delayMs: 5, most: 1.5 },
  { delayMs: 80, most: 2.5 },
];

async function backfill(delayMs: number): Promise<ChildRunReport> {
  return withSimulator(
    `redis-latency-${delayMs}`,
    { brands: 2, days: 3, scale: 30, latencyMs: 20 },
    async (context) => {
      const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
      const proxy =
        delayMs > 0
          ? await startDelayProxy({ host: url.hostname, port: Number(url.port || 6379) }, delayMs)
          : undefined;
      try {
        const report = await runInChild({
          kind: 'backfill',
          url: context.sim.url,
          apiKey: context.sim.apiKey,
          db: context.db,
          redisPrefix: context.redisPrefix,
          streams: [],
          brands: 2,
          from: daysBack(2),
          to: daysBack(0),
          ...(proxy ? { redisUrl: proxy.url } : {}),
        });
        if (report.status !== 'complete') throw new Error(`the backfill at ${delayMs} ms ended ${report.status}`);
        return report;
      } finally {
        await proxy?.close();
      }
    },
  );
}

export async function run(): Promise<BenchResult[]> {
  const direct = await backfill(0);
  const results: BenchResult[] = [
    {
      scenario: 'redis-latency',
      metric: 'backfill, Redis on loopback',
      value: direct.seconds,
      unit: 's',
      note: `${direct.planned} slices, ${direct.requests} requests`,
    },
  ];
  for (const { delayMs, most } of TARGETS) {
    const delayed = await backfill(delayMs);
    results.push({
      scenario: 'redis-latency',
      metric: `backfill, +${delayMs} ms per Redis round trip`,
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
