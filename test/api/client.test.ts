import { afterEach, describe, expect, it, vi } from 'vitest';
import { Writable } from 'node:stream';
import pino from 'pino';
import { MockAgent } from 'undici';
import { createApiClient } from '../../src/api/client.js';
import { named, type NamedClient } from '../support/named-client.js';
import { domainDetailEndpoint } from '../../src/streams/domain-details.js';
import { BrandAccessDeniedError, RateLimitedError, TransientError, ValidationError } from '../../src/api/errors.js';
import type { BudgetAnswer, RateBudget } from '../../src/api/rate/rate-budget.js';
import { BAD_ENVELOPE_ATTEMPTS, type ApiRequestEvent } from '../../src/api/transport.js';
import { MOCK_ORIGIN, collect, conversation, mockApi, mockConfig, type MockReply } from './mock-api.js';

let client: NamedClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

const onePage = { data: [conversation(1)], info: { page: 1, page_size: 100, total_rows: 1 } };
const errorBody = (code: string) => ({ error: { code, message: `because ${code}`, request_id: 'req-1' } });

function recordingBudget(): RateBudget & { acquired: number; blocks: number[]; answers: BudgetAnswer[] } {
  const budget = {
    acquired: 0,
    blocks: [] as number[],
    answers: [] as BudgetAnswer[],
    observe: async (answer: BudgetAnswer) => {
      budget.answers.push(answer);
    },
    acquire: async () => {
      budget.acquired += 1;
    },
    blockFor: async (ms: number) => {
      budget.blocks.push(ms);
    },
  };
  return budget;
}

describe('API client over HTTP', () => {
  it('sends X-API-Key on every request and takes one budget unit per attempt', async () => {
    const keys: string[] = [];
    let calls = 0;
    const { agent } = mockApi((_url, headers) => {
      keys.push(headers['x-api-key']!);
      calls += 1;
      return calls === 1 ? { status: 503, body: errorBody('unavailable') } : { body: onePage };
    });
    const budget = recordingBudget();
    client = named(createApiClient(mockConfig(), { dispatcher: agent, budget }));
    await collect(client.conversations(7));
    expect(keys).toEqual(['bvk_unit_test_key_0001', 'bvk_unit_test_key_0001']);
    expect(budget.acquired).toBe(2);
  });

  it('retries 5xx, resets, truncated and unparsable bodies, and broken envelopes, then succeeds', async () => {
    const faults = [
      // First: a broken envelope is asked again once only (BAD_ENVELOPE_ATTEMPTS), whatever api.maxAttempts allows.
      () => ({ body: { data: 'not an array', info: {} } }),
      () => ({ status: 500, body: errorBody('internal') }),
      () => Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
      () => ({ text: '{"data":[{"id":1,"da' }),
      // A gateway's page with its 5xx; one answered 200 is another format, asked twice only (response-body.test.ts).
      () => ({ status: 502, text: '<html>gateway</html>' }),
    ];
    let calls = 0;
    const { agent } = mockApi(() => faults[calls++]?.() ?? { body: onePage });
    const events: ApiRequestEvent[] = [];
    client = named(
      createApiClient(mockConfig({ maxAttempts: 6 }), { dispatcher: agent, onRequest: (e) => events.push(e) }),
    );
    const pages = await collect(client.conversations(7));
    expect(pages[0]!.records.map((r) => r.id)).toEqual([1]);
    expect(events.map((e) => e.outcome)).toEqual(['retry', 'retry', 'retry', 'retry', 'retry', 'ok']);
    expect(events.map((e) => e.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('reads counters of info sent as strings of digits as the numbers they spell', async () => {
    const { agent, requests } = mockApi((url) => {
      const page = Number(url.searchParams.get('page'));
      const ids = page === 1 ? [1, 2] : [3];
      return { body: { data: ids.map(conversation), info: { page: String(page), page_size: '2', total_rows: '3' } } };
    });
    client = named(createApiClient(mockConfig({ maxAttempts: 1 }), { dispatcher: agent }));
    const pages = await collect(client.conversations(7, { pageSize: 2 }));
    expect(pages.map((page) => [page.page, page.totalRows, page.records.map((r) => r.id)])).toEqual([
      [1, 3, [1, 2]],
      [2, 3, [3]],
    ]);
    expect(requests).toHaveLength(2);
  });

  it("asks an answer whose envelope is not the spec's twice, not api.maxAttempts times: it comes back the same", async () => {
    const { agent, requests } = mockApi(() => ({ body: { data: 'not an array', info: {} } }));
    client = named(createApiClient(mockConfig({ maxAttempts: 5 }), { dispatcher: agent }));
    const failure = await collect(client.conversations(7)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TransientError);
    expect((failure as TransientError).reason).toBe('bad_envelope');
    expect(requests).toHaveLength(BAD_ENVELOPE_ATTEMPTS);
  });

  it("reads the citations report's window total sent as a string of digits, as every counter of info", async () => {
    const { agent } = mockApi(() => ({
      body: {
        data: [{ date: '2026-11-20', occurrences: 4, change: null }],
        info: { summary: { occurrences: '4', by_ownership: [] }, total_rows: '1' },
      },
    }));
    client = named(createApiClient(mockConfig({ maxAttempts: 1 }), { dispatcher: agent }));
    const report = await client.citations(7);
    expect([report.info.summary?.occurrences, report.totalRows, report.records.length]).toEqual([4, 1, 1]);
  });

  it('pages on past a short page while total_rows says records remain (an API serving fewer than asked, unsaid)', async () => {
    // The API serves 2 a page whatever page_size asks, and echoes no page_size.
    const { agent, requests } = mockApi((url) => {
      const page = Number(url.searchParams.get('page'));
      const ids = [2 * page - 1, 2 * page].filter((id) => id <= 5);
      return { body: { data: ids.map(conversation), info: { page, total_rows: 5 } } };
    });
    client = named(createApiClient(mockConfig({ maxAttempts: 1 }), { dispatcher: agent }));
    const pages = await collect(client.conversations(7, { pageSize: 100 }));
    expect(pages.flatMap((page) => page.records.map((r) => r.id))).toEqual([1, 2, 3, 4, 5]);
    // Every record read, and no request past the last one.
    expect(requests).toHaveLength(3);
  });

  it("waits out a 503's Retry-After before trying again, within retryMaxMs", async () => {
    let calls = 0;
    const { agent } = mockApi(() =>
      ++calls === 1
        ? { status: 503, headers: { 'retry-after': '1' }, body: errorBody('unavailable') }
        : { body: onePage },
    );
    client = named(createApiClient(mockConfig({ maxAttempts: 2, retryMaxMs: 5_000 }), { dispatcher: agent }));
    const started = Date.now();
    await collect(client.conversations(7));
    expect(calls).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it("names the API's own error when a 200 carries its error envelope instead of data", async () => {
    const { agent } = mockApi(() => ({
      body: { error: { code: 'internal', message: 'backend timeout', request_id: 'req-9' } },
    }));
    client = named(createApiClient(mockConfig({ maxAttempts: 3 }), { dispatcher: agent }));
    const error = await collect(client.conversations(7)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as TransientError).message).toMatch(
      /HTTP 200 with the API's error envelope instead of data: internal: backend timeout \(request req-9\)/,
    );
    expect((error as TransientError).apiCode).toBe('internal');
    expect((error as TransientError).requestId).toBe('req-9');
  });

  it('gives up after maxAttempts with the last transient error', async () => {
    let calls = 0;
    const { agent } = mockApi(() => {
      calls += 1;
      return { status: 502, body: errorBody('bad_gateway') };
    });
    client = named(createApiClient(mockConfig({ maxAttempts: 3 }), { dispatcher: agent }));
    const error = await collect(client.conversations(7)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as TransientError).status).toBe(502);
    expect(calls).toBe(3);
  });

  it("waits a 503's Retry-After past retryMaxMs where outages are waited out, up to that wait", async () => {
    let calls = 0;
    const { agent } = mockApi(() =>
      ++calls === 1
        ? { status: 503, headers: { 'retry-after': '2' }, body: errorBody('unavailable') }
        : { body: onePage },
    );
    const budget = recordingBudget();
    client = named(
      createApiClient(mockConfig({ maxAttempts: 3, retryMaxMs: 50 }), {
        dispatcher: agent,
        budget,
        unansweredForMs: 60_000,
      }),
    );
    const started = Date.now();
    await collect(client.conversations(7));
    expect(calls).toBe(2);
    expect(budget.blocks).toEqual([2_000]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_950);
    // A Retry-After longer than the outage is waited out is cut to it: the call then says the API is away.
    calls = 0;
    const shortBudget = recordingBudget();
    await client.close();
    client = named(
      createApiClient(mockConfig({ maxAttempts: 3, retryMaxMs: 50 }), {
        dispatcher: mockApi(
          () => (++calls, { status: 503, headers: { 'retry-after': '600' }, body: errorBody('unavailable') }),
        ).agent,
        budget: shortBudget,
        unansweredForMs: 300,
      }),
    );
    const away = await collect(client.conversations(7)).catch((e: unknown) => e);
    expect((away as TransientError).apiUnavailable).toBe(true);
    // Cut to what is left of the tolerance once the first 503 came back: nearly all of it.
    expect(shortBudget.blocks).toHaveLength(1);
    expect(shortBudget.blocks[0]).toBeGreaterThan(200);
    expect(shortBudget.blocks[0]).toBeLessThanOrEqual(300);
    expect(calls).toBe(2);
  });

  it("waits a later 503's Retry-After only as long as is left of the outage tolerance", async () => {
    let calls = 0;
    const replies = [
      { status: 503, headers: { 'retry-after': '1' }, body: errorBody('unavailable') },
      { status: 503, headers: { 'retry-after': '600' }, body: errorBody('unavailable') },
    ];
    const budget = recordingBudget();
    client = named(
      createApiClient(mockConfig({ maxAttempts: 5, retryMaxMs: 50 }), {
        dispatcher: mockApi(() => replies[Math.min(calls++, 1)]!).agent,
        budget,
        unansweredForMs: 1_500,
      }),
    );
    const away = await collect(client.conversations(7)).catch((e: unknown) => e);
    expect((away as TransientError).apiUnavailable).toBe(true);
    // 1 s waited of the 1.5 s tolerated: the second wait is what is left, not the whole 1.5 s again.
    expect(budget.blocks[0]).toBe(1_000);
    expect(budget.blocks[1]).toBeGreaterThan(0);
    expect(budget.blocks[1]).toBeLessThanOrEqual(500);
    // The named waits together are the tolerance at most.
    expect(budget.blocks[0]! + budget.blocks[1]!).toBeLessThanOrEqual(1_500);
    expect(calls).toBe(3);
  });

  it('waits a Retry-After of a 5xx whose body was cut short no longer than retryMaxMs: it is not the API away', async () => {
    let calls = 0;
    // Announced as JSON, then not JSON at all: a body that could not be read.
    const { agent } = mockApi(() =>
      ++calls === 1
        ? { status: 500, headers: { 'retry-after': '600', 'content-encoding': 'gzip' }, text: 'not gzip' }
        : { body: onePage },
    );
    const budget = recordingBudget();
    const retries: Array<{ delayMs: number }> = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write: (line, _encoding, done) => done(void retries.push(JSON.parse(String(line)) as { delayMs: number })),
      }),
    );
    client = named(
      createApiClient(mockConfig({ maxAttempts: 3, retryMaxMs: 50 }), {
        dispatcher: agent,
        budget,
        unansweredForMs: 60_000,
        logger,
      }),
    );
    await collect(client.conversations(7));
    expect(calls).toBe(2);
    // The wait the client chose, as it logged it: retryMaxMs at most, and the key not held back for the 600 s.
    expect(retries.map((retry) => retry.delayMs)).toHaveLength(1);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(50);
    expect(budget.blocks).toEqual([]);
  });

  it("holds the whole key back for a 503's Retry-After, so the calls beside it do not meet the restart too", async () => {
    let calls = 0;
    const { agent } = mockApi(() =>
      ++calls === 1
        ? { status: 503, headers: { 'retry-after': '1' }, body: errorBody('unavailable') }
        : { body: onePage },
    );
    const budget = recordingBudget();
    client = named(createApiClient(mockConfig({ maxAttempts: 2, retryMaxMs: 5_000 }), { dispatcher: agent, budget }));
    await collect(client.conversations(7));
    expect(budget.blocks).toEqual([1_000]);
  });

  it('says the API is away when a call gives up on 5xx and resets and no other call was answered meanwhile', async () => {
    const { agent } = mockApi((url) =>
      url.pathname.endsWith('/7/conversations') ? { status: 502, body: errorBody('bad_gateway') } : { body: onePage },
    );
    client = named(createApiClient(mockConfig({ maxAttempts: 2 }), { dispatcher: agent }));
    const away = await collect(client.conversations(7)).catch((e: unknown) => e);
    expect(away).toBeInstanceOf(TransientError);
    expect((away as TransientError).apiUnavailable).toBe(true);
    // Another call answered while this one failed: the API is there, and this request is what it fails.
    const failing = collect(client.conversations(7)).catch((e: unknown) => e);
    await collect(client.conversations(8));
    const alone = await failing;
    expect(alone).toBeInstanceOf(TransientError);
    expect((alone as TransientError).apiUnavailable).toBe(false);
  });

  it('stops retrying a call once nothing was answered for as long as an outage is waited out, and says since when', async () => {
    let failed = 0;
    const { agent } = mockApi((url) =>
      url.pathname.endsWith('/7/conversations')
        ? (failed++, { status: 502, body: errorBody('bad_gateway') })
        : { body: onePage },
    );
    // Waits of up to 50 ms (full jitter): 19 of them outlast the 150 ms tolerance but for a chance of ~1e-7; at 20 ms the
    // twenty attempts fit in it about one run in twenty, and the call spent them all.
    const config = mockConfig({ maxAttempts: 20, retryBaseMs: 50, retryMaxMs: 50 });
    client = named(createApiClient(config, { dispatcher: agent, unansweredForMs: 150 }));
    const callStartedAt = Date.now();
    const failing = collect(client.conversations(7)).catch((e: unknown) => e);
    // Answered after the failing call began: the API went away while it was in flight.
    await collect(client.conversations(8));
    const away = (await failing) as TransientError;
    expect(away).toBeInstanceOf(TransientError);
    expect(away.apiUnavailable).toBe(true);
    // Since the last answer (or the first attempt sent after it), not the call's start; and for the tolerance at least.
    expect(away.unansweredSince).toBeGreaterThan(callStartedAt);
    expect(away.unansweredSince).toBeLessThanOrEqual(Date.now() - 150);
    expect(failed).toBeLessThan(20);
    // Without the option the call spends its twenty attempts, and the answer meanwhile says the API is there.
    failed = 0;
    await client.close();
    client = named(
      createApiClient(config, {
        dispatcher: mockApi((url) =>
          url.pathname.endsWith('/7/conversations')
            ? (failed++, { status: 502, body: errorBody('bad_gateway') })
            : { body: onePage },
        ).agent,
      }),
    );
    const spent = collect(client.conversations(7)).catch((e: unknown) => e);
    await collect(client.conversations(8));
    expect(((await spent) as TransientError).apiUnavailable).toBe(false);
    expect(failed).toBe(20);
  });

  it("does not count a call's wait for the key's budget as the API not answering", async () => {
    let calls = 0;
    const { agent } = mockApi(() =>
      ++calls === 1 ? { status: 502, body: errorBody('bad_gateway') } : { body: onePage },
    );
    // The key blocked (another process met a 429): the call waits 300 ms before it asks anything.
    let acquired = 0;
    const budget = {
      ...recordingBudget(),
      acquire: async () => void (acquired++ === 0 && (await new Promise((resolve) => setTimeout(resolve, 300)))),
    };
    client = named(
      createApiClient(mockConfig({ maxAttempts: 5 }), { dispatcher: agent, budget, unansweredForMs: 200 }),
    );
    const pages = await collect(client.conversations(7));
    expect(pages).toHaveLength(1);
    expect(calls).toBe(2);
  });

  it('does not say the API is away for an answer it could not read', async () => {
    const { agent } = mockApi(() => ({ text: '<html>gateway</html>' }));
    client = named(createApiClient(mockConfig({ maxAttempts: 2 }), { dispatcher: agent }));
    const error = await collect(client.conversations(7)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransientError);
    expect((error as TransientError).apiUnavailable).toBe(false);
  });

  it('fails fast on brand_access_denied and on a 400, without retrying', async () => {
    let calls = 0;
    const { agent } = mockApi((url) => {
      calls += 1;
      return url.pathname.includes('/brands/9/')
        ? { status: 403, body: errorBody('brand_access_denied') }
        : {
            status: 400,
            body: {
              error: {
                code: 'validation_error',
                message: 'bad',
                details: [{ field: 'page_size', message: 'too big' }],
                request_id: 'r-2',
              },
            },
          };
    });
    client = named(createApiClient(mockConfig(), { dispatcher: agent }));
    const denied = await collect(client.conversations(9)).catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(BrandAccessDeniedError);
    expect(denied).toMatchObject({
      code: 'brand_access_denied',
      status: 403,
      requestId: 'req-1',
      endpoint: 'GET /customer/v1/brands/9/conversations',
    });
    const invalid = await collect(client.conversations(7)).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).details).toEqual([{ field: 'page_size', message: 'too big' }]);
    expect(calls).toBe(2);
  });

  it("tells the budget each answer's status, when it was sent and what its rate-limit headers said", async () => {
    let calls = 0;
    const { agent } = mockApi((): MockReply => {
      calls += 1;
      return calls === 1
        ? {
            status: 429,
            headers: { 'retry-after': '1', 'ratelimit-policy': '20;w=1', ratelimit: 'limit=20, remaining=0, reset=1' },
            body: errorBody('rate_limited'),
          }
        : { headers: { 'x-ratelimit-limit': 'many', 'x-ratelimit-remaining': '19' }, body: onePage };
    });
    const budget = recordingBudget();
    const before = Date.now();
    client = named(createApiClient(mockConfig(), { dispatcher: agent, budget, retryRateLimited: true }));
    await collect(client.conversations(7));
    expect(budget.answers.map((a) => a.status)).toEqual([429, 200]);
    expect(budget.answers.every((a) => a.sentAt >= before && a.sentAt <= Date.now())).toBe(true);
    expect(budget.answers[0]!.signals).toEqual({
      policyPerSecond: 20,
      policyBy: 'RateLimit-Policy',
      limit: 20,
      limitBy: 'RateLimit',
      remaining: 0,
      resetMs: 1000,
      resetRoundingMs: 1000,
      problems: [],
    });
    // An unreadable value is left out; the rest of the answer's headers still count.
    expect(budget.answers[1]!.signals).toMatchObject({ remaining: 19, problems: ['x-ratelimit-limit: "many"'] });
    expect(budget.blocks).toEqual([1000]);
  });

  it('on a 429 blocks the key for Retry-After and throws it to the caller', async () => {
    let calls = 0;
    const { agent } = mockApi(() => {
      calls += 1;
      return { status: 429, headers: { 'retry-after': '3' }, body: errorBody('rate_limited') };
    });
    const budget = recordingBudget();
    client = named(createApiClient(mockConfig(), { dispatcher: agent, budget }));
    const error = await collect(client.conversations(7)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(3000);
    expect(budget.blocks).toEqual([3000]);
    expect(calls).toBe(1);
  });

  it('waits twice as long after each rate limit in a row that names no wait, up to a minute; an answer starts over', async () => {
    // An API counting per minute without Retry-After refuses every request until its window ends: a second each was
    // some 40 429s a minute. The clock is moved past each wait, so each 429 begins an episode of its own.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      // The third is a 503 rate_limited: a throttling answer of another status doubles the same.
      const replies = [429, 429, 503, 429, 429, 429, 429, 429, 200, 429];
      let calls = 0;
      const { agent } = mockApi(() => {
        const status = replies[calls++];
        return status === 200 ? { body: onePage } : { status, body: errorBody('rate_limited') };
      });
      const budget = recordingBudget();
      client = named(createApiClient(mockConfig(), { dispatcher: agent, budget }));
      const waits: number[] = [];
      for (let i = 0; i < replies.length; i++) {
        const result = await collect(client.conversations(7)).catch((e: unknown) => e);
        if (result instanceof RateLimitedError) waits.push(result.retryAfterMs);
        // The first two are one episode: the second was sent before the first one's wait ended.
        if (i !== 0) vi.setSystemTime(Date.now() + 70_000);
      }
      expect(waits).toEqual([1_000, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 1_000]);
      expect(budget.blocks).toEqual(waits);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a gateway's 403 with a Retry-After slows the key and is waited out like a 429, not taken for a refused key", async () => {
    let calls = 0;
    const { agent } = mockApi(() => {
      calls += 1;
      return calls === 1
        ? { status: 403, headers: { 'retry-after': '1' }, text: '<html>403 Forbidden</html>' }
        : { body: onePage };
    });
    const budget = recordingBudget();
    const events: ApiRequestEvent[] = [];
    client = named(
      createApiClient(mockConfig({ maxAttempts: 1 }), {
        dispatcher: agent,
        budget,
        retryRateLimited: true,
        onRequest: (e) => events.push(e),
      }),
    );
    const pages = await collect(client.conversations(7));
    expect(pages[0]!.records).toHaveLength(1);
    expect(events.map((e) => `${e.status} ${e.outcome}`)).toEqual(['403 rate_limited', '200 ok']);
    expect(budget.blocks).toEqual([1000]);
  });

  it('with retryRateLimited waits out 429s itself and succeeds', async () => {
    let calls = 0;
    const { agent } = mockApi(() => {
      calls += 1;
      return calls <= 2
        ? { status: 429, headers: { 'retry-after': '0' }, body: errorBody('rate_limited') }
        : { body: onePage };
    });
    const events: ApiRequestEvent[] = [];
    client = named(
      createApiClient(mockConfig({ maxAttempts: 1 }), {
        dispatcher: agent,
        retryRateLimited: true,
        onRequest: (e) => events.push(e),
      }),
    );
    const pages = await collect(client.conversations(7));
    expect(pages[0]!.records).toHaveLength(1);
    // 429s do not spend attempts: maxAttempts 1 still succeeds.
    expect(events.map((e) => e.outcome)).toEqual(['rate_limited', 'rate_limited', 'ok']);
  });

  it('times out a stalled answer on the overall deadline and retries it', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get(MOCK_ORIGIN);
    pool
      .intercept({ path: () => true, method: 'GET' })
      .reply(200, onePage)
      .delay(500);
    pool.intercept({ path: () => true, method: 'GET' }).reply(200, onePage);
    const events: ApiRequestEvent[] = [];
    client = named(
      createApiClient(mockConfig({ requestTimeoutMs: 50 }), { dispatcher: agent, onRequest: (e) => events.push(e) }),
    );
    const pages = await collect(client.conversations(7));
    expect(pages[0]!.records).toHaveLength(1);
    expect(events[0]).toMatchObject({ outcome: 'retry', errorCode: 'transient' });
  });

  it('turns the 404 of a domain with no citations into an empty result, counted empty rather than failed', async () => {
    const { agent, requests } = mockApi(() => ({ status: 404, body: errorBody('not_found') }));
    const events: ApiRequestEvent[] = [];
    client = named(createApiClient(mockConfig(), { dispatcher: agent, onRequest: (event) => events.push(event) }));
    const result = await client.domainDetail(7, 'nothing.example', { startDate: '2026-11-20', endDate: '2026-11-20' });
    expect(result).toEqual({ records: [], rejects: [], info: {}, empty: true });
    expect(events.map((event) => [event.status, event.outcome])).toEqual([[404, 'empty']]);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.pathname).toBe('/customer/v1/brands/7/citations/domains/nothing.example');
  });

  it('says how the 404 of a domain with no citations was asked, as any answer: the day loads with its read settings', async () => {
    const { agent } = mockApi(() => ({ status: 404, body: errorBody('not_found') }));
    const raw = createApiClient(mockConfig({ params: { start_date: 'since' } }), { dispatcher: agent });
    try {
      const pages = await collect(
        raw.read(domainDetailEndpoint, 7, {
          domain: 'nothing.example',
          startDate: '2026-11-20',
          endDate: '2026-11-20',
        }),
      );
      expect(pages).toHaveLength(1);
      expect(JSON.parse(pages[0]!.readWith!)).toEqual({ names: { end_date: 'end_date', start_date: 'since' } });
    } finally {
      await raw.close();
    }
  });

  it('reads a 200 whose data is null for a domain with no citations as empty, as its 404', async () => {
    const { agent } = mockApi(() => ({
      body: { data: null, info: { query: { start_date: '2026-11-20', end_date: '2026-11-20' } } },
    }));
    client = named(createApiClient(mockConfig(), { dispatcher: agent }));
    const result = await client.domainDetail(7, 'quiet.example', { startDate: '2026-11-20', endDate: '2026-11-20' });
    // It had been a record that failed validation, each such day incomplete for good.
    expect(result).toMatchObject({ records: [], rejects: [], empty: true });
  });

  it("fails on a 404 without the API's error envelope (a gateway's page), which says nothing of the domain's citations", async () => {
    const { agent } = mockApi(() => ({
      status: 404,
      text: '<html><body><h1>404 Not Found</h1>nginx</body></html>',
      headers: { 'content-type': 'text/html' },
    }));
    const events: ApiRequestEvent[] = [];
    client = named(createApiClient(mockConfig(), { dispatcher: agent, onRequest: (event) => events.push(event) }));
    await expect(
      client.domainDetail(7, 'example.com', { startDate: '2026-11-20', endDate: '2026-11-20' }),
    ).rejects.toThrow(/HTTP 404 .*text\/html/);
    expect(events.map((event) => event.outcome)).toEqual(['failed']);
  });

  it('applies the configured engines unless a call names its own', async () => {
    const { agent, requests } = mockApi(() => ({ body: { data: [], info: { query: {}, total_rows: 0 } } }));
    client = named(createApiClient(mockConfig({ engines: ['e1', 'e2'], arrayFormat: 'comma' }), { dispatcher: agent }));
    await client.visibilityTopics(7, { includeScenarios: true });
    await client.visibilityTopics(7, { engines: ['e3'] });
    expect(requests[0]!.search).toBe('?engines=e1%2Ce2&include_scenarios=true');
    expect(requests[1]!.search).toBe('?engines=e3');
  });

  it('keeps a base path of the configured URL', async () => {
    const { agent, requests } = mockApi(() => ({ body: { data: [], info: { total_rows: 0 } } }));
    client = named(createApiClient(mockConfig({ url: `${MOCK_ORIGIN}/gateway/` }), { dispatcher: agent }));
    await client.competitors(7, { confirmed: false });
    expect(requests[0]!.pathname).toBe('/gateway/customer/v1/brands/7/competitors');
    expect(requests[0]!.search).toBe('?confirmed=false');
  });
});
