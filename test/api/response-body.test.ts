import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { isBadEnvelope, PermanentError, TransientError } from '../../src/api/errors.js';
import { readResponseText, ResponseTooLargeError } from '../../src/api/response-body.js';
import { redactSecrets, registerSecret } from '../../src/log.js';
import { named, type NamedClient } from '../support/named-client.js';
import { collect, conversation, mockApi, mockConfig } from './mock-api.js';

const MB = 2 ** 20;
const ENDPOINT = 'GET /customer/v1/brands/7/conversations';

function answer(chunks: Buffer[], headers: Record<string, string> = {}) {
  const body = Readable.from(chunks) as unknown as Parameters<typeof readResponseText>[0]['body'];
  return { body, headers };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: Error) => error,
  );
}

describe('reading an answer', () => {
  it('refuses one over the limit by its Content-Length, or once it has streamed past it, naming the setting', async () => {
    const declared = await failure(
      readResponseText(answer([Buffer.from('{}')], { 'content-length': String(300 * MB) }), ENDPOINT, 16 * MB),
    );
    expect(declared).toBeInstanceOf(ResponseTooLargeError);
    expect(declared.message).toBe(
      `${ENDPOINT}: the answer is 300.0 MB (its Content-Length), over api.maxResponseMb (16 MB); raise it if the API's answers are this large`,
    );
    const chunks = Array.from({ length: 5 }, () => Buffer.alloc(MB, 0x20));
    const streamed = await failure(readResponseText(answer(chunks), ENDPOINT, 4 * MB));
    expect(streamed).toBeInstanceOf(ResponseTooLargeError);
    expect(streamed.message).toContain('over 4.0 MB and still coming');
    expect((streamed as ResponseTooLargeError).retryable).toBe(false);
  });

  it('reads what fits, compressed or not, and counts a compressed body once decoded too', async () => {
    const json = JSON.stringify({ data: [1, 2, 3] });
    expect(
      await readResponseText(answer([Buffer.from(json.slice(0, 5)), Buffer.from(json.slice(5))]), ENDPOINT, MB),
    ).toBe(json);
    expect(await readResponseText(answer([gzipSync(json)], { 'content-encoding': 'gzip' }), ENDPOINT, MB)).toBe(json);
    // 8 MB of spaces compress to a few kB: a small download that would still not fit.
    const bomb = await failure(
      readResponseText(answer([gzipSync(Buffer.alloc(8 * MB, 0x20))], { 'content-encoding': 'gzip' }), ENDPOINT, MB),
    );
    expect(bomb).toBeInstanceOf(ResponseTooLargeError);
    expect(bomb.message).toContain('once decoded (gzip)');
  });

  it('says so for a coding it cannot read, and retries a body that does not decode', async () => {
    const unknown = await failure(
      readResponseText(answer([Buffer.from('x')], { 'content-encoding': 'zstd' }), ENDPOINT, MB),
    );
    expect(unknown).toBeInstanceOf(PermanentError);
    expect(unknown.message).toContain('Content-Encoding "zstd"');
    const broken = await failure(
      readResponseText(answer([Buffer.from('not gzip')], { 'content-encoding': 'gzip' }), ENDPOINT, MB),
    );
    expect(broken).toBeInstanceOf(TransientError);
  });
});

describe('what the client says of an answer that is not the JSON expected', () => {
  let client: NamedClient | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it('a proxy page shows its content type and first characters; a redirect where it points and which setting to check', async () => {
    const replies: Array<{ status: number; text: string; headers: Record<string, string> }> = [
      {
        status: 502,
        text: '<html>\n<head><title>502 Bad Gateway</title></head></html>',
        headers: { 'content-type': 'text/html' },
      },
      { status: 200, text: '<html>Please log in</html>', headers: { 'content-type': 'text/html' } },
      { status: 301, text: '', headers: { location: 'https://api.example.com/v2/customer/v1/brands/7/conversations' } },
    ];
    for (const reply of replies) {
      const { agent, requests } = mockApi(() => reply);
      client = named(createApiClient(mockConfig({ maxAttempts: 1 }), { dispatcher: agent }));
      const error = await failure(collect(client.conversations(7)));
      expect(requests).toHaveLength(1);
      if (reply.status === 502)
        expect(error.message).toContain(
          'HTTP 502 (text/html, 57 characters: "<html> <head><title>502 Bad Gateway</title></head></html>")',
        );
      if (reply.status === 200)
        expect(error.message).toContain(
          'HTTP 200 with a body that is not JSON (text/html, 26 characters: "<html>Please log in</html>")',
        );
      if (reply.status === 301)
        expect(error.message).toContain(
          'HTTP 301 to https://api.example.com/v2/customer/v1/brands/7/conversations; bvsync does not follow redirects',
        );
      await client.close();
      client = undefined;
    }
  });

  it('asks a 200 of another format twice, as an envelope of another shape, and JSON cut short up to api.maxAttempts', async () => {
    const cases = [
      { text: '<html>Please log in</html>', requests: 2, badEnvelope: true },
      { text: 'Service temporarily moved', requests: 2, badEnvelope: true },
      // Read whole and empty: sent so (a domain without citations, say), not cut short; it had cost twenty requests too.
      { text: '', requests: 2, badEnvelope: true },
      { text: '{"data": [{"id": 1', requests: 5, badEnvelope: false },
    ];
    for (const reply of cases) {
      const { agent, requests } = mockApi(() => ({ text: reply.text, headers: { 'content-type': 'text/html' } }));
      client = named(
        createApiClient(mockConfig({ maxAttempts: 5, retryBaseMs: 1, retryMaxMs: 2 }), { dispatcher: agent }),
      );
      const error = await failure(collect(client.conversations(7)));
      // A proxy's login page had been asked five times a job attempt, four job attempts a slice: twenty requests.
      expect(requests, reply.text).toHaveLength(reply.requests);
      expect(isBadEnvelope(error), reply.text).toBe(reply.badEnvelope);
      expect((error as TransientError).reason, reply.text).toBe(
        reply.text === '' ? 'empty_body' : reply.badEnvelope ? 'other_format' : 'bad_body',
      );
      if (reply.badEnvelope && reply.text)
        expect(error.message).toMatch(
          /; check api\.url: a proxy or another service may be answering in the API's place$/,
        );
      await client.close();
      client = undefined;
    }
  });

  it('reads a JSON answer that begins with a byte order mark, as RFC 8259 lets a reader', async () => {
    const page = { data: [conversation(1), conversation(2)], info: { page: 1, page_size: 100, total_rows: 2 } };
    const { agent, requests } = mockApi(() => ({ text: `\uFEFF${JSON.stringify(page)}` }));
    client = named(createApiClient(mockConfig({ maxAttempts: 3 }), { dispatcher: agent }));
    const pages = await collect(client.conversations(7));
    // Before, each attempt failed as "a body that is not JSON", quoting what looked like JSON.
    expect(pages.flatMap((p) => p.records.map((r) => r.id))).toEqual([1, 2]);
    expect(requests).toHaveLength(1);
  });

  it('asks for the codings it reads', async () => {
    const seen: string[] = [];
    const { agent } = mockApi((_url, headers) => {
      seen.push(headers['accept-encoding'] ?? '');
      return { body: { data: [], info: { page: 1, total_rows: 0 } } };
    });
    client = named(createApiClient(mockConfig(), { dispatcher: agent }));
    await collect(client.conversations(7));
    expect(seen).toEqual(['gzip, deflate, br']);
  });
});

describe('the key in messages', () => {
  it('is redacted as sent and as a URL or a form would encode it', () => {
    registerSecret('bvk_secret+key/0001');
    expect(redactSecrets('bad key bvk_secret%2Bkey%2F0001x, bvk_secret+key/0001')).toBe(
      'bad key [REDACTED]x, [REDACTED]',
    );
  });
});
