import type { RunningSimulator } from '../../src/simulator/index.js';

export const TODAY = '2026-11-20';

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

type QueryValue = string | number | boolean | Array<string | number>;

/** Plain fetch against a simulator: the real client is someone else's, these tests see only HTTP. */
export function client(sim: RunningSimulator, brand = 1, apiKey: string | null = sim.apiKey) {
  const base = `${sim.url}/customer/v1/brands/${brand}`;
  const headers = (extra: Record<string, string> = {}) => ({
    ...(apiKey === null ? {} : { 'x-api-key': apiKey }),
    ...extra,
  });
  const toUrl = (path: string, query: Record<string, QueryValue | undefined> = {}) => {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) search.append(key, String(v));
      else search.append(key, String(value));
    }
    const text = search.toString();
    return `${base}${path}${text ? `?${text}` : ''}`;
  };
  const read = async <T>(response: Response): Promise<Reply<T>> => {
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: text ? (JSON.parse(text) as T) : (undefined as T),
    };
  };
  return {
    base,
    get: async <T = any>(path: string, query: Record<string, QueryValue | undefined> = {}) =>
      read<T>(await fetch(toUrl(path, query), { headers: headers() })),
    send: async <T = any>(method: 'POST' | 'PATCH', path: string, body?: unknown, extra: Record<string, string> = {}) =>
      read<T>(
        await fetch(toUrl(path), {
          method,
          headers: headers({ 'content-type': 'application/json', ...extra }),
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      ),
  };
}

/** The error envelope's shape, checked once here. */
export function expectEnvelope(reply: Reply, status: number, code: string): { field: string; message: string }[] {
  if (reply.status !== status) throw new Error(`expected ${status} ${code}, got ${reply.status}: ${reply.text}`);
  const error = reply.body?.error;
  if (!error || error.code !== code) throw new Error(`expected code ${code}: ${reply.text}`);
  if (typeof error.message !== 'string' || !Array.isArray(error.details))
    throw new Error(`bad envelope: ${reply.text}`);
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(error.request_id))
    throw new Error(`request_id not a UUID: ${reply.text}`);
  return error.details;
}
