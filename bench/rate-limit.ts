/**
 * Scenario 2, rate-limit efficiency under a limit bvsync does not know: the simulator answers after 100 ms and allows
 * 20 requests per second per key (over it: 429 + Retry-After: 1, no rate-limit headers, like the spec); bvsync backfills
 * conversations of 50 days x 2,000 answers (~1,100 requests) with `api.requestsPerSecond` at the limit, at 2x and 4x
 * it, and `auto`. Each row runs against a fresh simulator and Redis prefix, so nothing learned carries over. Achieved
 * requests/s is counted by the simulator, from the first request of the run to the last answer. Targets, per row:
 * >= 0.85 x the limit, and 429 answers < 2 % of requests.
 */
import { writeFileSync } from 'node:fs';
import { conversationsSpec, runInChild, withSimulator } from './harness.js';
import { run as runConventions } from './rate-conventions.js';
import type { BenchResult } from './run.js';

const LIMIT = 20;
const LATENCY_MS = 100;
const DAYS = 50;
const PER_DAY = 2_000;
const MIN_REQUESTS = 1_000;
const CONFIGURED: Array<number | 'auto'> = [LIMIT, 2 * LIMIT, 4 * LIMIT, 'auto'];

export async function run(): Promise<BenchResult[]> {
  // BVSYNC_BENCH_RATE=40 (or auto) runs that row alone; =conventions runs only the limits stated in headers
  // (bench/rate-conventions.ts, about a minute), =unstated only the rows of this file.
  const only = process.env.BVSYNC_BENCH_RATE;
  const results: BenchResult[] = [];
  if (!only || only === 'conventions') results.push(...(await runConventions()));
  if (only === 'conventions') return results;
  for (const configured of CONFIGURED.filter((c) => !only || only === 'unstated' || String(c) === only))
    results.push(...(await runOne(configured)));
  return results;
}

async function runOne(configured: number | 'auto'): Promise<BenchResult[]> {
  return withSimulator(
    'bench-rate',
    { scale: PER_DAY, days: DAYS, latencyMs: LATENCY_MS, rateLimit: LIMIT },
    async (context) => {
      const { sim } = context;
      const report = await runInChild(
        conversationsSpec(context, DAYS, { requestsPerSecond: configured, timeoutMs: 300_000 }),
      );
      const log = await sim.requests();
      // BVSYNC_BENCH_RATE_LOG=/tmp/x keeps each row's request log (/tmp/x-40.json) for a look at where the time went.
      const keep = process.env.BVSYNC_BENCH_RATE_LOG;
      if (keep)
        writeFileSync(
          `${keep}-${configured}.json`,
          JSON.stringify(log.map(({ time, durationMs, status }) => ({ time, durationMs, status }))),
        );
      if (log.length < MIN_REQUESTS)
        throw new Error(`the backfill made ${log.length} requests; the scenario needs >= ${MIN_REQUESTS}`);
      const first = Math.min(...log.map((entry) => Date.parse(entry.time)));
      const last = Math.max(...log.map((entry) => Date.parse(entry.time) + entry.durationMs));
      const perSecond = log.length / ((last - first) / 1000);
      const limited = log.filter((entry) => entry.status === 429).length;
      const share = limited / log.length;
      const setting = configured === 'auto' ? '"auto"' : `${configured}/s`;
      return [
        {
          scenario: 'rate-limit',
          metric: `achieved requests/s, configured ${setting}, API limit ${LIMIT}/s, ${LATENCY_MS} ms latency`,
          value: perSecond,
          unit: 'req/s',
          reference: LIMIT,
          target: '>= 0.85 x limit',
          met: perSecond >= 0.85 * LIMIT,
          note: `${log.length.toLocaleString('en-US')} requests in ${((last - first) / 1000).toFixed(1)} s; run ${report.status} in ${report.seconds.toFixed(1)} s`,
        },
        {
          scenario: 'rate-limit',
          metric: `429 answers, share of requests, configured ${setting}`,
          value: share * 100,
          unit: '%',
          target: '< 2 %',
          met: share < 0.02,
          note: `${limited} x 429 of ${log.length.toLocaleString('en-US')}`,
        },
      ];
    },
  );
}
