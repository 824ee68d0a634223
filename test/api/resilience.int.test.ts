import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createApiClient, type ApiClientOptions } from '../../src/api/client.js';
import { named, type NamedClient } from '../support/named-client.js';
import { RateLimitedError, ValidationError } from '../../src/api/errors.js';
import { createRedisRateBudget } from '../../src/api/rate/rate-budget.js';
import { extraOf } from '../../src/streams/extra.js';
import { conversationSchema, type Conversation } from '../../src/streams/conversations.js';
import type { ApiRequestEvent } from '../../src/api/transport.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';
import { parseConfig } from '../../src/configuration.js';

const TODAY = '2026-11-20';
const DAYS = ['2026-11-18', '2026-11-19', '2026-11-20'];
const RANGE = { startDate: DAYS[0]!, endDate: TODAY };

let sim: RunningSimulator;
const clients: NamedClient[] = [];
const redisConnections: Redis[] = [];
const prefix = uniquePrefix('api-resilience');

beforeAll(async () => {
  // About 1,000 answers a day: 3,000 conversations over the three days read here.
  sim = await startSimulator({ seed: 5, brands: 2, days: 4, scale: 1000, today: TODAY });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await sim.close();
  if (redisConnections[0]) await deletePrefix(redisConnections[0], prefix);
  await Promise.all(redisConnections.map((r) => r.quit()));
});

function client(api: Record<string, unknown> = {}, options: ApiClientOptions = {}): NamedClient {
  const config = parseConfig({
    api: {
      url: sim.url,
      apiKey: sim.apiKey,
      requestsPerSecond: 2000,
      retryBaseMs: 5,
      retryMaxMs: 50,
      maxAttempts: 8,
      ...api,
    },
  }).api;
  const made = named(createApiClient(config, options));
  clients.push(made);
  return made;
}

function expectedIds(brand: number): number[] {
  return DAYS.flatMap((day) => sim.truth.answers(brand, day).map((a) => a.id)).sort((a, b) => a - b);
}

async function readAll(
  api: NamedClient,
  brand: number,
  pageSize = 100,
): Promise<{ ids: number[]; totals: Array<number | undefined>; rejects: number; records: Conversation[] }> {
  const ids: number[] = [];
  const totals: Array<number | undefined> = [];
  const records: Conversation[] = [];
  let rejects = 0;
  for await (const page of api.conversations(brand, { ...RANGE, pageSize })) {
    ids.push(...page.records.map((r) => r.id));
    records.push(...page.records);
    totals.push(page.totalRows);
    rejects += page.rejects.length;
  }
  return { ids, totals, rejects, records };
}

describe('the client against a misbehaving simulator', () => {
  it('pages over thousands of records with no loss and no duplicate', async () => {
    const expected = expectedIds(1);
    expect(expected.length).toBeGreaterThan(2500);
    const { ids, totals } = await readAll(client(), 1);
    expect(ids.length).toBe(expected.length);
    expect([...ids].sort((a, b) => a - b)).toEqual(expected);
    expect(totals.every((t) => t === expected.length)).toBe(true);
  });

  it('with 5xx, resets and truncated bodies on 20% of requests, still reads every record exactly once', async () => {
    sim.setKnobs({ faultRate: 0.2, faultKinds: ['5xx', 'reset', 'truncated'] });
    sim.clearRequestLog();
    const events: ApiRequestEvent[] = [];
    try {
      const { ids } = await readAll(client({}, { onRequest: (e) => events.push(e) }), 2, 40);
      expect([...ids].sort((a, b) => a - b)).toEqual(expectedIds(2));
    } finally {
      sim.setKnobs({ faultRate: 0 });
    }
    const faults = sim.requestLog().filter((r) => r.fault);
    expect(faults.length).toBeGreaterThanOrEqual(8);
    expect(new Set(faults.map((f) => f.fault)).size).toBeGreaterThanOrEqual(2);
    expect(events.filter((e) => e.outcome === 'retry').length).toBe(faults.length);
    expect(events.filter((e) => e.outcome === 'failed')).toEqual([]);
  });

  // undici's header and body timers tick about once a second, so the overall deadline is what ends a stall here.
  it('a stalled body times out and is retried', async () => {
    sim.setKnobs({ faultRate: 0.3, faultKinds: ['stall'], stallMs: 5_000 });
    const events: ApiRequestEvent[] = [];
    try {
      const api = client(
        { headersTimeoutMs: 200, bodyTimeoutMs: 200, requestTimeoutMs: 500 },
        { onRequest: (e) => events.push(e) },
      );
      const pages = api.conversations(1, { startDate: TODAY, endDate: TODAY, pageSize: 100 });
      let count = 0;
      for await (const page of pages) count += page.records.length;
      expect(count).toBe(sim.truth.answers(1, TODAY).length);
    } finally {
      sim.setKnobs({ faultRate: 0 });
    }
    expect(events.some((e) => e.outcome === 'retry' && e.errorCode === 'transient')).toBe(true);
  });

  it('a 429 storm slows the whole key (two processes sharing a Redis budget) and every request still succeeds', async () => {
    sim.setKnobs({ rateLimit: 15, retryAfterSeconds: 1 });
    sim.clearRequestLog();
    const events: ApiRequestEvent[] = [];
    const shared = (options: ApiClientOptions) => {
      const redis = testRedis();
      redisConnections.push(redis);
      // Each process believes the key allows 40 requests a second; the API allows 15.
      const budget = createRedisRateBudget({ redis, apiKey: sim.apiKey, prefix, requestsPerSecond: 40 });
      return client({}, { ...options, budget, retryRateLimited: true });
    };
    const a = shared({ onRequest: (e) => events.push(e) });
    const b = shared({ onRequest: (e) => events.push(e) });
    try {
      const [one, two] = await Promise.all([readAll(a, 1, 100), readAll(b, 2, 100)]);
      expect([...one.ids].sort((x, y) => x - y)).toEqual(expectedIds(1));
      expect([...two.ids].sort((x, y) => x - y)).toEqual(expectedIds(2));
    } finally {
      sim.setKnobs({ rateLimit: 0 });
    }
    const log = sim.requestLog();
    const limited = log.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(events.filter((e) => e.outcome === 'rate_limited')).toHaveLength(limited.length);
    expect(events.filter((e) => e.outcome === 'failed')).toEqual([]);
    // After the first 429 the key is blocked for its Retry-After: neither process sends in the next ~0.9 s
    // (a request already on its way may land in the first moments).
    const first = Date.parse(limited[0]!.time);
    const during = log.filter((r) => Date.parse(r.time) > first + 150 && Date.parse(r.time) < first + 900);
    expect(during).toEqual([]);
  });

  it('without retryRateLimited a 429 reaches the caller with its Retry-After', async () => {
    sim.setKnobs({ rateLimit: 1, retryAfterSeconds: 2, retryAfterFormat: 'http-date' });
    try {
      const api = client();
      // The simulator's window is one second: the second call within it (or the first, after earlier tests) is over.
      let error: unknown;
      for (let call = 0; call < 3 && !error; call++)
        error = await api.competitors(1).then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(RateLimitedError);
      expect((error as RateLimitedError).retryAfterMs).toBeGreaterThan(500);
      expect((error as RateLimitedError).retryAfterMs).toBeLessThanOrEqual(2000);
    } finally {
      sim.setKnobs({ rateLimit: 0, retryAfterFormat: 'seconds' });
    }
  });

  it('rejects invalid records one by one, delivers the rest, and keeps unknown fields and enum values', async () => {
    sim.setKnobs({ invalidShare: 0.05, extraFieldShare: 0.1, unknownEnumShare: 0.1 });
    try {
      const rejected: unknown[] = [];
      const records: Conversation[] = [];
      let total: number | undefined;
      for await (const page of client().conversations(1, { ...RANGE, pageSize: 100 })) {
        records.push(...page.records);
        rejected.push(...page.rejects);
        total = page.totalRows;
        for (const reject of page.rejects) {
          expect(reject.source).toBe(`GET /customer/v1/brands/1/conversations page ${page.page}`);
          expect(reject.issues.length).toBeGreaterThan(0);
        }
      }
      expect(rejected.length).toBeGreaterThan(50);
      expect(records.length + rejected.length).toBe(total);
      expect(records.some((r) => extraOf(conversationSchema, r)?.x_unlisted_field)).toBe(true);
      expect(records.some((r) => r.model === 'engine_preview_unlisted')).toBe(true);
    } finally {
      sim.setKnobs({ invalidShare: 0, extraFieldShare: 0, unknownEnumShare: 0 });
    }
  });
});

describe('a simulator with other parameter names', () => {
  let other: RunningSimulator;
  const params = {
    start_date: 'from',
    end_date: 'to',
    page: 'p',
    page_size: 'per_page',
    engines: 'models',
    include_scenarios: 'with_scenarios',
  };

  beforeAll(async () => {
    other = await startSimulator({
      seed: 5,
      brands: 1,
      days: 3,
      scale: 300,
      today: TODAY,
      params,
      arrayFormat: 'comma',
    });
  });
  afterAll(() => other.close());

  it('works when the client is configured with the same mapping', async () => {
    const config = parseConfig({
      api: {
        url: other.url,
        apiKey: other.apiKey,
        params,
        arrayFormat: 'comma',
        pageSize: 50,
        requestsPerSecond: 2000,
      },
    }).api;
    const api = named(createApiClient(config));
    clients.push(api);
    const engines = [...new Set(other.truth.answers(1, TODAY).map((a) => a.engine))].slice(0, 2);
    let count = 0;
    for await (const page of api.conversations(1, { startDate: TODAY, endDate: TODAY, engines }))
      count += page.records.length;
    const expected = other.truth.answers(1, TODAY).filter((a) => engines.includes(a.engine)).length;
    expect(count).toBe(expected);
    const report = await api.visibilityTopics(1, { startDate: TODAY, endDate: TODAY, includeScenarios: true, engines });
    expect(report.info.query).toMatchObject({ from: TODAY, to: TODAY, with_scenarios: true });
    expect(other.requestLog().at(-1)!.query).toMatchObject({ models: engines.join(',') });
  });

  it("fails with the API's validation details when the client sends the default names", async () => {
    const config = parseConfig({ api: { url: other.url, apiKey: other.apiKey, requestsPerSecond: 2000 } }).api;
    const api = named(createApiClient(config));
    clients.push(api);
    const error = await api.visibilityTopics(1, { startDate: TODAY, endDate: TODAY }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details?.map((d) => d.field).sort()).toEqual(['end_date', 'start_date']);
  });
});
