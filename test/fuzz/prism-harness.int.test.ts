import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrism, type RunningPrism } from '../support/prism.js';

/**
 * The harness the fuzz test stands on: Prism serves docs/openapi.yaml, enforces it on requests, answers the same
 * request the same way under a seed (and different requests differently), and leaves no process behind.
 */

let prism: RunningPrism;
const get = async (path: string, headers: Record<string, string> = { 'x-api-key': prism.apiKey }) => {
  const response = await fetch(`${prism.url}/customer/v1/brands/1${path}`, { headers });
  return { status: response.status, text: await response.text() };
};

beforeAll(async () => {
  prism = await startPrism({ seed: 'harness' });
}, 90_000);
afterAll(async () => {
  await prism?.stop();
});

describe('Prism, started by test/support/prism.ts', () => {
  it('answers a seeded request the same way every time, and another page or day differently', async () => {
    const first = await get('/conversations?start_date=2026-11-19&end_date=2026-11-19&page=1&page_size=100');
    expect(first.status).toBe(200);
    expect(JSON.parse(first.text)).toMatchObject({ data: expect.any(Array), info: expect.any(Object) });
    expect((await get('/conversations?start_date=2026-11-19&end_date=2026-11-19&page=1&page_size=100')).text).toBe(
      first.text,
    );
    expect((await get('/conversations?start_date=2026-11-19&end_date=2026-11-19&page=2&page_size=100')).text).not.toBe(
      first.text,
    );
    expect((await get('/conversations?start_date=2026-11-18&end_date=2026-11-18&page=1&page_size=100')).text).not.toBe(
      first.text,
    );
  });

  it('enforces the document on requests: the key, ranges, enums and formats', async () => {
    expect((await get('/conversations', {})).status).toBe(401);
    const invalid = [
      '/conversations?page_size=101',
      '/products/ranking?page_size=51',
      '/conversations?page=0',
      '/reports/citations?period=year',
      '/reports/citations?ownership=mine',
      '/conversations?start_date=yesterday',
    ];
    for (const path of invalid) expect({ path, status: (await get(path)).status }).toEqual({ path, status: 400 });
    expect((await get('/products/ranking?page_size=50')).status).toBe(200);
    expect((await get('/conversations?start_date=2026-11-19T00:00:00Z&end_date=2026-11-19')).status).toBe(200);
  });

  it('stops: SIGTERM ends the process, and a second stop is harmless', async () => {
    const pid = prism.pid;
    await prism.stop();
    await prism.stop();
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });
});
