import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { RateLimitedError, TransientError } from '../../src/api/errors.js';
import { named } from '../support/named-client.js';
import { collect } from './mock-api.js';
import { parseConfig } from '../../src/configuration.js';

/**
 * An error answer whose body never arrives whole (cut short, or a gzip body that is empty) is still its status: the
 * status and headers came before the body failed.
 */
let server: Server;
let url: string;
let requests = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests += 1;
    const brand = /\/brands\/(\d+)\//.exec(req.url ?? '')?.[1];
    if (brand === '1') {
      // A 429 that promises 200 bytes and sends 10, then the connection goes.
      res.writeHead(429, { 'content-type': 'application/json', 'content-length': '200', 'retry-after': '30' });
      res.write('{"error":{');
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    // A 404 whose gzip body is empty: it cannot be decoded, and only its body says whether it is an empty result.
    res.writeHead(404, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': '0' });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const config = () =>
  parseConfig({ api: { url, apiKey: 'bvk_unread_body_key_01', maxAttempts: 5, retryBaseMs: 1, retryMaxMs: 2 } }).api;

describe('an error answer whose body cannot be read', () => {
  it('is a rate limit when it is a 429, with its Retry-After, asked once', async () => {
    requests = 0;
    const client = named(createApiClient(config(), { retryRateLimited: false }));
    const error = await collect(client.conversations(1)).catch((caught: unknown) => caught);
    await client.close();
    // It had been a reset: retried at once, four times more, and its Retry-After unheeded.
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(30_000);
    expect((error as Error).message).toMatch(/HTTP 429 \(its body could not be read: /);
    expect(requests).toBe(1);
  });

  it('is asked again when another status, whose body says what it means (a 404: an empty result, or a missing one)', async () => {
    requests = 0;
    const client = named(createApiClient(config()));
    const error = await collect(client.conversations(2)).catch((caught: unknown) => caught);
    await client.close();
    // Read as a 404 without the envelope it failed an empty domain detail for good, where a retry reads it whole.
    expect(error).toBeInstanceOf(TransientError);
    expect((error as TransientError).reason).toBe('bad_body');
    expect((error as Error).message).toMatch(/HTTP 404 whose body could not be read/);
    expect(requests).toBe(5);
  });
});
