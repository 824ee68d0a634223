/**
 * Every rate-header convention, each against a 10/s and a 20/s limit the API states (issue 35). The simulator runs in
 * its own process with the convention's knobs (docs/simulator.md); this process reads pages of conversations through
 * the API client with 8 readers at once (`sync.fetchConcurrency`'s default), its key configured at 4x the limit, so only what the headers state holds it
 * back. Each case sends SECONDS x the limit requests against a fresh simulator and Redis prefix. Achieved requests/s is
 * counted by the simulator, from the first request to the last answer. Targets, per case: >= 0.9 x the limit, and 429
 * answers < 1 % of requests. Part of `npm run bench -- rate-limit` (bench/rate-limit.ts).
 */
import { createApiClient } from '../src/api/client.js';
import { endpointReads } from '../src/cli/endpoint-reads.js';
import { createRedisRateBudget, RATE_HEADROOM } from '../src/api/rate/rate-budget.js';
import { eachDay } from '../src/days.js';
import { daysBack, startSimProcess } from './harness.js';
import { testRedis, uniquePrefix, deletePrefix } from '../test/support/redis.js';
import type { BenchResult } from './run.js';
import { parseConfig } from '../src/configuration.js';

const LIMITS = [10, 20];
const LATENCY_MS = 50;
const SECONDS = 5;
const READERS = 8;

const CONVENTIONS: Array<{ name: string; knobs: Record<string, string> }> = [
  {
    name: 'X-RateLimit, Reset in seconds from now',
    knobs: { rateLimitHeaders: 'x-ratelimit', rateLimitReset: 'delta-seconds' },
  },
  {
    name: 'X-RateLimit, Reset in Unix seconds',
    knobs: { rateLimitHeaders: 'x-ratelimit', rateLimitReset: 'unix-seconds' },
  },
  {
    name: 'X-RateLimit, Reset in Unix ms',
    knobs: { rateLimitHeaders: 'x-ratelimit', rateLimitReset: 'unix-milliseconds' },
  },
  {
    name: 'X-RateLimit, Reset as an HTTP date',
    knobs: { rateLimitHeaders: 'x-ratelimit', rateLimitReset: 'http-date' },
  },
  { name: 'RateLimit + RateLimit-Policy (draft 07)', knobs: { rateLimitHeaders: 'ietf' } },
  { name: 'RateLimit + RateLimit-Policy (q, w; drafts 08+)', knobs: { rateLimitHeaders: 'ietf-structured' } },
  {
    name: 'token bucket, full-refill Reset in Unix seconds',
    knobs: { rateLimitAlgorithm: 'token-bucket', rateLimitHeaders: 'x-ratelimit', rateLimitReset: 'unix-seconds' },
  },
];

export async function run(): Promise<BenchResult[]> {
  // BVSYNC_BENCH_RATE_CONVENTION=bucket runs only the conventions whose name holds it.
  const only = process.env.BVSYNC_BENCH_RATE_CONVENTION?.toLowerCase();
  const results: BenchResult[] = [];
  for (const convention of CONVENTIONS.filter((c) => !only || c.name.toLowerCase().includes(only))) {
    for (const limit of LIMITS) results.push(...(await runOne(convention, limit)));
  }
  return results;
}

async function runOne(convention: (typeof CONVENTIONS)[number], limit: number): Promise<BenchResult[]> {
  const sim = await startSimProcess({ scale: 100, days: 30, latencyMs: LATENCY_MS, rateLimit: limit });
  const redis = testRedis();
  const prefix = uniquePrefix('bench-rate-conventions');
  const configured = 4 * limit;
  const budget = createRedisRateBudget({
    redis,
    apiKey: sim.apiKey,
    prefix,
    requestsPerSecond: configured,
    headroom: RATE_HEADROOM,
    firstAnswerFirst: true,
  });
  const config = parseConfig({ api: { url: sim.url, apiKey: sim.apiKey, requestsPerSecond: configured } }).api;
  const client = createApiClient(config, { budget, retryRateLimited: true });
  const api = endpointReads(client);
  try {
    await sim.setKnobs(convention.knobs);
    const target = SECONDS * limit;
    const days = eachDay(daysBack(29), daysBack(0));
    let sent = 0;
    let nextDay = 0;
    const reader = async () => {
      while (sent < target && nextDay < days.length) {
        const day = days[nextDay++]!;
        for await (const page of api.conversations(1, { startDate: day, endDate: day, pageSize: 10 })) {
          void page;
          if (++sent >= target) break;
        }
      }
    };
    await Promise.all(Array.from({ length: READERS }, reader));
    const log = await sim.requests();
    const first = Math.min(...log.map((entry) => Date.parse(entry.time)));
    const last = Math.max(...log.map((entry) => Date.parse(entry.time) + entry.durationMs));
    const perSecond = log.length / ((last - first) / 1000);
    const limited = log.filter((entry) => entry.status === 429).length;
    if (process.env.BVSYNC_BENCH_RATE_DEBUG) {
      process.stderr.write(
        `${JSON.stringify(log.map((entry) => [Date.parse(entry.time) - first, entry.status]).filter(([, status], i, all) => status === 429 || all[i + 1]?.[1] === 429 || all[i - 1]?.[1] === 429))}\n`,
      );
    }
    const share = limited / log.length;
    return [
      {
        scenario: 'rate-limit',
        metric: `achieved requests/s, ${convention.name}, API limit ${limit}/s`,
        value: perSecond,
        unit: 'req/s',
        reference: limit,
        target: '>= 0.9 x limit',
        met: perSecond >= 0.9 * limit,
        note: `${log.length} requests in ${((last - first) / 1000).toFixed(1)} s; configured ${configured}/s`,
      },
      {
        scenario: 'rate-limit',
        metric: `429 answers, share of requests, ${convention.name}, API limit ${limit}/s`,
        value: share * 100,
        unit: '%',
        target: '< 1 %',
        met: share < 0.01,
        note: `${limited} x 429 of ${log.length}`,
      },
    ];
  } finally {
    await client.close();
    await sim.stop();
    await deletePrefix(redis, prefix);
    redis.disconnect();
  }
}
