import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliEnv,
  engineFixture,
  spawnBvsync,
  writeCliConfig,
  type CliProcess,
  type EngineFixture,
} from '../support/engine.js';
import { until } from '../support/until.js';
import { PrivateRedis } from '../reliability/scenarios.js';

/**
 * `/healthz` and `/readyz` of `bvsync worker --metrics-port`, asked over HTTP as a Kubernetes probe asks them: a worker
 * that may write (and takes the lease) and a fetch-only one, on a Redis of their own that is killed and restarted.
 */

interface Probe {
  status: number;
  body: string;
}

let fx: EngineFixture;
let redis: PrivateRedis;
let writer: CliProcess;
let fetcher: CliProcess;
let writerBase: string;
let fetcherBase: string;

async function ask(url: string): Promise<Probe> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}

/** The worker's probe address, from its "serving metrics" log line. */
async function started(worker: CliProcess): Promise<string> {
  await worker.waitFor(/worker started/, 60_000);
  const url = /"url":"(http:[^"]+)\/metrics"/.exec(worker.output())?.[1];
  if (!url) throw new Error(`no metrics url in:\n${worker.output()}`);
  return url;
}

beforeAll(async () => {
  fx = await engineFixture('health');
  redis = await PrivateRedis.start(false);
  const config = writeCliConfig(fx);
  const env = cliEnv(fx, { REDIS_URL: redis.url, BVSYNC_LEASE_TTL_MS: '2000' });
  writer = spawnBvsync(['worker', '--metrics-port', '0', '--config', config], env);
  fetcher = spawnBvsync(['worker', '--fetch-only', '--metrics-port', '0', '--config', config], env);
  [writerBase, fetcherBase] = await Promise.all([started(writer), started(fetcher)]);
}, 120_000);
afterAll(async () => {
  for (const worker of [writer, fetcher]) worker?.kill('SIGTERM');
  await Promise.all([writer?.done, fetcher?.done]);
  await redis?.stop();
  await fx?.cleanup();
});

describe.skipIf(!PrivateRedis.available())('the probes of a worker (needs redis-server on PATH)', () => {
  it('/healthz answers 200 while the process runs', async () => {
    expect(await ask(`${writerBase}/healthz`)).toEqual({ status: 200, body: 'ok\n' });
    expect((await ask(`${fetcherBase}/healthz`)).status).toBe(200);
  });

  it('/readyz of the writer: ready once it holds the lease and its database answers', async () => {
    let last: Probe = { status: 0, body: '' };
    await until(
      'the writer holds the lease',
      async () => {
        last = await ask(`${writerBase}/readyz`);
        return /holding the lease; the database answers/.test(last.body);
      },
      30_000,
    );
    expect(last.status).toBe(200);
    expect(JSON.parse(last.body)).toEqual({
      ready: true,
      checks: {
        process: { ok: true, detail: 'running' },
        redis: { ok: true, detail: 'answers PING' },
        writer: { ok: true, detail: 'holding the lease; the database answers' },
      },
    });
  });

  it('/readyz of a fetch-only worker: ready when Redis answers, with no writer to check', async () => {
    // Its host's connection to Redis may still be opening when it says "worker started": polled, as the writer's is.
    let probe: Probe = { status: 0, body: '' };
    await until(
      'the fetch-only worker ready',
      async () => (probe = await ask(`${fetcherBase}/readyz`)).status === 200,
      30_000,
    );
    expect(probe.status).toBe(200);
    expect(JSON.parse(probe.body).checks.writer).toEqual({ ok: true, detail: 'fetch-only' });
  });

  it('/readyz says 503 while Redis is down, and ready again once it is back; /healthz and /metrics answer', async () => {
    await redis.kill();
    let last: Probe = { status: 0, body: '' };
    await until(
      'both workers not ready',
      async () => {
        const probes = await Promise.all([ask(`${writerBase}/readyz`), ask(`${fetcherBase}/readyz`)]);
        last = probes[0];
        return probes.every((probe) => probe.status === 503);
      },
      30_000,
    );
    expect(JSON.parse(last.body).checks.redis).toEqual({
      ok: false,
      detail: expect.stringMatching(/^not connected \(|^no answer to PING/),
    });
    expect((await ask(`${writerBase}/healthz`)).status).toBe(200);
    // /metrics answers without the queue depths, which would wait on Redis; bounded so a hang fails, not stalls.
    for (const base of [writerBase, fetcherBase]) {
      const response = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(30_000) });
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(text).toMatch(/^bvsync_writer_lease_held \d/m);
      expect(text).not.toMatch(/^bvsync_queue_jobs\{/m);
    }
    await redis.start();
    await until(
      'both workers ready again',
      async () => {
        const probes = await Promise.all([ask(`${writerBase}/readyz`), ask(`${fetcherBase}/readyz`)]);
        return probes.every((probe) => probe.status === 200);
      },
      60_000,
    );
  });
  it('/metrics answers while Redis holds its connections and answers nothing, without the queue depths', async () => {
    redis.pause();
    try {
      // Without the bound on the queue depths, this scrape would wait for as long as Redis is paused.
      const response = await fetch(`${writerBase}/metrics`, { signal: AbortSignal.timeout(30_000) });
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(text).not.toMatch(/^bvsync_queue_jobs\{/m);
    } finally {
      redis.resume();
    }
    await until('the writer ready again', async () => (await ask(`${writerBase}/readyz`)).status === 200, 60_000);
  });
});
