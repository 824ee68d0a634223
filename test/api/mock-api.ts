import { MockAgent } from 'undici';
import type { ApiConfig } from '../../src/config/schema.js';
import { parseConfig } from '../../src/configuration.js';

export const MOCK_ORIGIN = 'http://api.test';

export interface MockReply {
  status?: number;
  body?: unknown;
  /** A raw body, sent as is (for broken JSON). */
  text?: string;
  headers?: Record<string, string>;
}

/**
 * An undici MockAgent that answers every GET to MOCK_ORIGIN through one handler and records the requests, for
 * narrow client tests that need exact control of each answer (the simulator covers the rest).
 */
export function mockApi(handler: (url: URL, headers: Record<string, string>) => MockReply | Error) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const requests: URL[] = [];
  agent
    .get(MOCK_ORIGIN)
    .intercept({ path: () => true, method: 'GET' })
    .reply((options) => {
      const url = new URL(options.path, MOCK_ORIGIN);
      requests.push(url);
      const reply = handler(url, (options.headers ?? {}) as Record<string, string>);
      if (reply instanceof Error) throw reply;
      const data = reply.text ?? JSON.stringify(reply.body ?? {});
      return {
        statusCode: reply.status ?? 200,
        data,
        responseOptions: { headers: { 'content-type': 'application/json', ...reply.headers } },
      };
    })
    .persist();
  return { agent, requests };
}

export function mockConfig(api: Record<string, unknown> = {}): ApiConfig {
  return parseConfig({
    api: {
      url: MOCK_ORIGIN,
      apiKey: 'bvk_unit_test_key_0001',
      retryBaseMs: 1,
      retryMaxMs: 5,
      requestsPerSecond: 10_000,
      ...api,
    },
  }).api;
}

export function conversation(id: number): Record<string, unknown> {
  return { id, date: '2026-11-20T10:00:00Z', model: 'engine-a', has_shopping: false, mentioned: id % 2 === 0 };
}

/** Collects every page of a page stream. */
export async function collect<P>(pages: AsyncIterable<P>): Promise<P[]> {
  const out: P[] = [];
  for await (const page of pages) out.push(page);
  return out;
}
