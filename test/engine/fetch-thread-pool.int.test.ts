import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { AuthError, BrandAccessDeniedError, createApiClient, type ApiRequestEvent } from '../../src/api/index.js';
import { readChunks } from '../../src/engine/fetch/chunk-store.js';
import { FetchThreadPool } from '../../src/engine/fetch/fetch-thread-pool.js';
import type { FetchJobData } from '../../src/engine/jobs/job-data.js';
import { emptyTally, RequestTallies } from '../../src/engine/run/request-tally.js';
import { inlineSliceReader } from '../../src/engine/fetch/slice-reader.js';
import { redisKeys } from '../../src/redis-keys.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { testAvailability } from '../support/availability.js';
import { deletePrefix, testRedis, TEST_REDIS_URL, uniquePrefix } from '../support/redis.js';
import { parseConfig, type Config } from '../../src/configuration.js';
import { until } from '../support/until.js';

// A fetch thread reads a slice exactly as the main thread does (same chunks in Redis, same counts), and what it meets
// comes back as the main thread would have met it: the error's class, the requests counted, its log lines.

const DAY = '2026-11-18';
let sim: RunningSimulator;
let redis: Redis;
let prefix: string;
let config: Config;

beforeAll(async () => {
  sim = await startSimulator({ seed: 11, brands: 1, days: 5, scale: 150, today: '2026-11-20' });
  redis = testRedis();
  prefix = uniquePrefix('fetch-threads');
  config = parseConfig({
    api: { url: sim.url, apiKey: sim.apiKey, requestsPerSecond: 1000, pageSize: 40 },
    brands: [1],
    db: '/nowhere/bv.duckdb',
    redisPrefix: prefix,
  });
  // Chunks are written only for a run Redis knows (src/engine/run/run-gone.ts).
  const now = new Date().toISOString();
  await new RunStore(redis, prefix).create({
    runId: 'run-threads',
    kind: 'backfill',
    brands: [1],
    streams: ['conversations'],
    today: '2026-11-20',
    from: null,
    to: null,
    status: 'running',
    startedAt: now,
    finishedAt: null,
    phase: 1,
    published: null,
    error: null,
  });
});
afterAll(async () => {
  await sim.close();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

function conversationsOf(brandId: number, day = DAY): FetchJobData {
  return {
    runId: 'run-threads',
    brandId,
    stream: 'conversations',
    sliceId: `${brandId}-${day}`,
    slice: { key: day, day, from: day, to: day, params: {} },
    refetch: 0,
  };
}

/** A pool of `threads` over `config`, with what it hands to the main thread: request events and log lines. */
function pool(threads: number, options: { config?: Config; signal?: AbortSignal } = {}) {
  const events: ApiRequestEvent[] = [];
  const lines: string[] = [];
  const log = pino(
    { level: 'debug' },
    new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }),
  );
  const used = options.config ?? config;
  const reader = new FetchThreadPool({
    threads,
    setup: {
      config: used,
      redisUrl: TEST_REDIS_URL,
      logLevel: 'debug',
      chunkRows: 1_000,
      connections: 2,
    },
    log,
    onRequest: (event) => events.push(event),
    signal: options.signal,
  });
  return { reader, events, lines };
}

describe('fetch threads', () => {
  it('read a slice into the same chunks as a read on the main thread, and count its requests', async () => {
    const { reader, events } = pool(2);
    const client = createApiClient(config.api);
    try {
      const tally = { ...emptyTally(), requests: 3 };
      const threaded = await reader.read(conversationsOf(1), 'threaded', tally);
      const tallies = new RequestTallies();
      const inlineClient = createApiClient(config.api, { onRequest: tallies.onRequest });
      const inlineTally = emptyTally();
      const inline = await inlineSliceReader({
        redis,
        prefix,
        client: inlineClient,
        sync: config.sync,
        tallies,
        chunkRows: 1_000,
        availability: testAvailability(redis, prefix),
      }).read(conversationsOf(1), 'inline', inlineTally);
      await inlineClient.close();

      expect(threaded.result.status).toBe('complete');
      expect(threaded.result.records).toBeGreaterThan(100);
      expect(threaded.result).toEqual(inline.result);
      expect(threaded.chunks).toBe(inline.chunks);
      expect(await readChunks(redis, prefix, 'threaded', threaded.chunks)).toEqual(
        await readChunks(redis, prefix, 'inline', inline.chunks),
      );
      // Counted on top of what earlier attempts carried, and every attempt heard by the main thread.
      expect(tally.requests).toBe(3 + inlineTally.requests);
      expect(events.length).toBe(inlineTally.requests);
      expect(events.every((event) => event.outcome === 'ok' && event.endpoint.endsWith('/conversations'))).toBe(true);
    } finally {
      await client.close();
      await reader.close();
    }
  });

  it('give back the API error as its class, with the request it cost, and drop the chunks it wrote', async () => {
    const { reader } = pool(1);
    try {
      const tally = emptyTally();
      const refused = await reader.read(conversationsOf(2), 'refused', tally).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(BrandAccessDeniedError);
      expect((refused as BrandAccessDeniedError).retryable).toBe(false);
      expect((refused as BrandAccessDeniedError).endpoint).toContain('/brands/2/');
      expect(tally.requests).toBe(1);
      expect(await redis.exists(redisKeys(prefix).chunk('refused', 0))).toBe(0);
    } finally {
      await reader.close();
    }
  });

  it('never let the key out: a wrong key is an AuthError, and no line or error the main thread gets holds it', async () => {
    const wrongKey = 'bvk_wrong_key_that_must_not_leak_1234';
    const { reader, lines } = pool(1, { config: { ...config, api: { ...config.api, apiKey: wrongKey } } });
    try {
      const refused = await reader.read(conversationsOf(1), 'wrong-key', emptyTally()).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(AuthError);
      expect(JSON.stringify({ message: (refused as Error).message, ...(refused as AuthError).toJSON() })).not.toContain(
        wrongKey,
      );
      expect(lines.join('')).not.toContain(wrongKey);
    } finally {
      await reader.close();
    }
  });

  describe('against an API that never answers', () => {
    let silent: Server;
    let connections = 0;
    beforeAll(async () => {
      silent = createServer(() => {});
      silent.on('connection', () => (connections += 1));
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    });

    it('end a read in flight when the host aborts, and refuse reads once closed', async () => {
      const abort = new AbortController();
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      // Deadlines far beyond the test's own timeout: only the abort can end the read in time.
      const hanging = {
        ...config,
        api: { ...config.api, url, requestTimeoutMs: 600_000, headersTimeoutMs: 600_000, bodyTimeoutMs: 600_000 },
      };
      const { reader } = pool(1, { config: hanging, signal: abort.signal });
      const read = reader.read(conversationsOf(1), 'hanging', emptyTally()).catch((error: unknown) => error);
      await waitFor(() => connections > 0);
      abort.abort();
      const ended = await read;
      expect(ended).toBeInstanceOf(Error);
      await reader.close();
      await expect(reader.read(conversationsOf(1), 'closed', emptyTally())).rejects.toThrow(/closed/);
    });

    it('fail the reads of a thread that dies mid-read, so BullMQ tries them again, and start a new thread for the next', async () => {
      const abort = new AbortController();
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const hanging = {
        ...config,
        api: { ...config.api, url, requestTimeoutMs: 600_000, headersTimeoutMs: 600_000, bodyTimeoutMs: 600_000 },
      };
      const { reader, lines } = pool(1, { config: hanging, signal: abort.signal });
      try {
        const before = connections;
        const read = reader.read(conversationsOf(1), 'dying', emptyTally()).catch((error: unknown) => error);
        await waitFor(() => connections > before);
        // What a thread over its heap limit or a native crash looks like from the pool: its worker ends mid-read.
        await (
          reader as unknown as { slots: { worker: { terminate(): Promise<number> } }[] }
        ).slots[0]!.worker.terminate();
        const ended = await read;
        expect(ended).toBeInstanceOf(Error);
        expect((ended as Error).message).toMatch(/a fetch thread ended \(exit code \d+\) while reading the slice/);
        expect(lines.join('')).toMatch(/a fetch thread ended; the slices it was reading will be tried again/);
        // The next read gets a thread of its own: it reaches the API.
        const reached = connections;
        const next = reader.read(conversationsOf(1), 'after', emptyTally()).catch((error: unknown) => error);
        await waitFor(() => connections > reached);
        abort.abort();
        expect(await next).toBeInstanceOf(Error);
      } finally {
        abort.abort();
        await reader.close();
      }
    });
  });
});

function waitFor(condition: () => boolean): Promise<void> {
  return until('the condition asked', condition, 20_000, 20);
}
