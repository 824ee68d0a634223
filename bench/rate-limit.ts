/**
 * Scenario 2, rate-limit efficiency: the simulator answers after 100 ms and allows 20 requests per second per key
 * (over it: 429 + Retry-After); bvsync is configured with that limit (`api.requestsPerSecond: 20`) and backfills
 * conversations of 55 days x 2,000 answers (~1,100 requests). Achieved requests/s is counted by the simulator, from
 * the first request of the run to the last answer. Targets: >= 0.9 x the limit, and 429 answers < 1% of requests.
 */
import { conversationsSpec, runInChild, withSimulator } from './harness.js';
import type { BenchResult } from './run.js';

const LIMIT = 20;
const LATENCY_MS = 100;
const DAYS = 50;
const PER_DAY = 2_000;
const MIN_REQUESTS = 1_000;

export async function run(): Promise<BenchResult[]> {
  return withSimulator('bench-rate', { scale: PER_DAY, days: DAYS, latencyMs: LATENCY_MS, rateLimit: LIMIT }, async (context) => {
    const { sim } = context;
    const report = await runInChild(conversationsSpec(context, DAYS, { requestsPerSecond: LIMIT, timeoutMs: 300_000 }));
    const log = await sim.requests();
    if (log.length < MIN_REQUESTS) throw new Error(`the backfill made ${log.length} requests; the scenario needs >= ${MIN_REQUESTS}`);
    const first = Math.min(...log.map((entry) => Date.parse(entry.time)));
    const last = Math.max(...log.map((entry) => Date.parse(entry.time) + entry.durationMs));
    const perSecond = log.length / ((last - first) / 1000);
    const limited = log.filter((entry) => entry.status === 429).length;
    const share = limited / log.length;
    return [
      {
        scenario: 'rate-limit',
        metric: `achieved requests/s at a limit of ${LIMIT}/s, ${LATENCY_MS} ms latency`,
        value: perSecond,
        unit: 'req/s',
        reference: LIMIT,
        target: '>= 0.9 x limit',
        met: perSecond >= 0.9 * LIMIT,
        note: `${log.length.toLocaleString('en-US')} requests in ${((last - first) / 1000).toFixed(1)} s; run ${report.status} in ${report.seconds.toFixed(1)} s`,
      },
      {
        scenario: 'rate-limit',
        metric: '429 answers, share of requests',
        value: share * 100,
        unit: '%',
        target: '< 1 %',
        met: share < 0.01,
        note: `${limited} x 429 of ${log.length.toLocaleString('en-US')}`,
      },
    ];
  });
}
