import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { inspect } from 'node:util';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { createApiClient } from '../../src/api/client.js';
import { named } from '../support/named-client.js';
import type { ApiConfig } from '../../src/config/schema.js';
import { tempDir } from '../support/tmp.js';
import { collect } from './mock-api.js';
import { loadConfig, parseConfig } from '../../src/configuration.js';

const SECRET = 'bvk_SECRET_d1st1nct1v3_KEY_7f3a9';
const ok = {
  data: [{ id: 1, date: '2026-11-20T10:00:00Z', model: 'm', has_shopping: false, mentioned: true }],
  info: { page: 1, page_size: 100, total_rows: 1 },
};

let server: Server;
let url: string;
const seenKeys = new Set<string>();

beforeAll(async () => {
  server = createServer((req, res) => {
    seenKeys.add(String(req.headers['x-api-key']));
    const brand = /\/brands\/(\d+)\//.exec(req.url ?? '')?.[1];
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    // The API echoing the key back in an error message: the client must still never pass it on.
    const echo = (code: string) => ({
      error: {
        code,
        message: `key ${req.headers['x-api-key']} refused`,
        request_id: 'r-1',
        details: [{ field: 'x-api-key', message: String(req.headers['x-api-key']) }],
      },
    });
    if (brand === '1') return send(200, ok);
    if (brand === '2') return send(401, echo('unauthorized'));
    if (brand === '3') return send(403, echo('brand_access_denied'));
    if (brand === '4') return send(503, echo('unavailable'));
    if (brand === '5') return; // stalls: the client times out
    if (brand === '6') return req.socket.destroy(); // a reset
    // Not the spec's envelope (`error` is a string), with the key across the 80 characters of the body an error shows.
    if (brand === '7')
      return send(401, {
        error: 'unauthorized',
        message: `The API key sent with this request, ${req.headers['x-api-key']}, is not valid for this account`,
      });
    send(404, echo('not_found'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the API key stays secret', () => {
  it('appears in no log line, no error message and no property of any thrown error', async () => {
    const config = parseConfig({ api: { url, apiKey: SECRET, ...FAST_FAILURES } }).api;
    await expectKeptSecret(config);
  });

  it('read from BVSYNC_API_KEY_FILE, appears in none of them either', async () => {
    const dir = tempDir('secrets-api');
    try {
      const file = join(dir.path, 'key');
      writeFileSync(file, `${SECRET}\n`, { mode: 0o600 });
      const config = loadConfig({ env: { BVSYNC_API_URL: url, BVSYNC_API_KEY_FILE: file } });
      expect(config.api.apiKey).toBe(SECRET);
      await expectKeptSecret({ ...config.api, ...FAST_FAILURES });
    } finally {
      dir.remove();
    }
  });
});

const FAST_FAILURES = { maxAttempts: 2, retryBaseMs: 1, retryMaxMs: 2, headersTimeoutMs: 150, requestTimeoutMs: 300 };

/** Sends the key to every kind of failure the mock API has, then searches every log line and error for it. */
async function expectKeptSecret(config: ApiConfig): Promise<void> {
  seenKeys.clear();
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  // A logger with no redaction of its own: this proves the client never hands the key to a logger at all.
  const logger = pino({ level: 'trace' }, sink);
  const client = named(createApiClient(config, { logger, onRequest: (event) => logger.info({ event }, 'request') }));
  const errors: unknown[] = [];
  for (const brand of [1, 2, 3, 4, 5, 6, 7]) {
    await collect(client.conversations(brand)).catch((error: unknown) => errors.push(error));
  }
  await client.close();

  expect(seenKeys).toEqual(new Set([SECRET]));
  expect(errors).toHaveLength(6);
  expect(errors.map((e) => (e as { code: string }).code)).toEqual([
    'unauthorized',
    'brand_access_denied',
    'transient',
    'transient',
    'transient',
    'unauthorized',
  ]);
  expect(lines.length).toBeGreaterThan(5);
  // Nor any part of it: a body cut to 80 characters before the key was masked kept the key's first 33.
  const part = SECRET.slice(0, 12);
  for (const line of lines) expect(line).not.toContain(part);
  expect((errors[5] as Error).message).toMatch(
    /\(application\/json, \d+ characters: ".*The API key sent with this request, \[REDACT/,
  );
  for (const error of errors) {
    const err = error as Error & Record<string, unknown>;
    expect(err.message).not.toContain(part);
    expect(err.stack ?? '').not.toContain(SECRET);
    expect(JSON.stringify(err)).not.toContain(SECRET);
    expect(inspect(err, { depth: 10, showHidden: true })).not.toContain(SECRET);
    for (const name of Object.getOwnPropertyNames(err)) expect(inspect(err[name], { depth: 10 })).not.toContain(SECRET);
  }
  // The echoed message is kept, with the key masked.
  expect((errors[0] as Error).message).toContain('[REDACTED]');
}
